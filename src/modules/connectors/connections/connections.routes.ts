import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ConnectionsService } from './connections.service.js'
import * as schemas from './connections.schemas.js'

export const connectionsRoutes: FastifyPluginAsyncTypebox<{ service: ConnectionsService }> = async (app, { service }) => {
  app.get('/connectors/connections', { schema: schemas.listConnections }, async (request) => {
    return service.list(request.credential!.orgId, request.query)
  })

  app.delete('/connectors/connections/:id', { schema: schemas.revokeConnection }, async (request, reply) => {
    await service.revoke(request.credential!, request.params.id, request.ip)
    return reply.status(204).send(null)
  })

  app.get('/connectors/oauth-clients', { schema: schemas.listClients, config: { minRole: 'admin' } }, async (request) => {
    return service.listClients(request.credential!.orgId, request.query)
  })

  app.post('/connectors/oauth-clients', { schema: schemas.createClient, config: { minRole: 'admin' } }, async (request, reply) => {
    return reply.status(201).send(await service.createClient(request.credential!, request.body, request.ip))
  })
}
