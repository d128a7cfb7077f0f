import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { OrgsService } from './orgs.service.js'
import * as schemas from './orgs.schemas.js'

export const orgsRoutes: FastifyPluginAsyncTypebox<{ service: OrgsService }> = async (app, { service }) => {
  app.get(
    '/orgs/current',
    { schema: schemas.getCurrent, config: { etag: true } },
    async (request) => service.current(request.credential!.orgId)
  )

  app.patch('/orgs/current', { schema: schemas.renameCurrent }, async (request) => {
    return service.rename(request.credential!, request.body.name, request.ip)
  })

  app.post('/orgs/current/transfer-ownership', { schema: schemas.transferOwnership, config: { errors: ['conflict'] } }, async (request) => {
    return service.transferOwnership(request.credential!, request.body.personId, request.ip)
  })
}
