import { createReadStream } from 'node:fs'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../types.js'
import type { BackupsService } from './backups.service.js'
import * as schemas from './backups.schemas.js'

export const backupsRoutes: FastifyPluginAsyncTypebox<{ service: BackupsService }> = async (app, { service }) => {
  app.post('/backups', { schema: schemas.createBackup }, async (request, reply) => {
    return reply.status(202).send(await service.create(request.store!, actorOf(request.credential!)))
  })

  app.get('/backups', { schema: schemas.listBackups }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/backups/:id', { schema: schemas.getBackup }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  app.get('/backups/:id/download', { schema: schemas.downloadBackup, config: { errors: ['conflict'] } }, async (request, reply) => {
    const file = await service.download(request.store!.id, request.params.id)
    return reply.type('application/gzip')
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .header('x-checksum-sha256', file.checksum)
      .send(createReadStream(file.path) as unknown as string)
  })

  app.post('/backups/:id/restore', { schema: schemas.restoreBackup, config: { errors: ['conflict'] } }, async (request) => {
    const credential = request.credential!
    return service.restore(request.store!, request.params.id, request.body.targetStoreEnvId, {
      id: actorOf(credential),
      ip: request.ip,
      storeIds: credential.storeIds ?? null
    })
  })
}
