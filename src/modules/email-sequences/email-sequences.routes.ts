import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailSequencesService } from './email-sequences.service.js'
import * as schemas from './email-sequences.schemas.js'

export const emailSequencesRoutes: FastifyPluginAsyncTypebox<{ service: EmailSequencesService }> = async (app, { service }) => {
  app.get('/email-sequences', { schema: schemas.listSequences }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/email-sequences/:id', { schema: schemas.getSequence }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  app.post('/email-sequences', { schema: schemas.createSequence, config: { errors: ['conflict'] } }, async (request, reply) => {
    return reply.status(201).send(await service.create(request.store!, request.body))
  })

  app.put('/email-sequences/:id', { schema: schemas.replaceSequence, config: { errors: ['conflict'] } }, async (request) => {
    return service.replace(request.store!, request.params.id, request.body)
  })

  app.delete('/email-sequences/:id', { schema: schemas.deleteSequence }, async (request, reply) => {
    await service.remove(request.store!, request.params.id)
    return reply.status(204).send(null)
  })
}
