import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AccountService } from './account.service.js'
import * as schemas from './account.schemas.js'

export const accountRoutes: FastifyPluginAsyncTypebox<{ service: AccountService }> = async (app, { service }) => {
  app.get('/account/stores', {
    schema: schemas.listStores,
    config: { storeScoped: false, scopeExempt: true, subscriptionExempt: true }
  }, async (request) => service.stores(request.credential!, request.query))

  app.get('/account/members', { schema: schemas.listMembers }, async (request) => {
    return service.members(request.credential!.orgId, request.query)
  })

  app.delete('/account/members/:id', { schema: schemas.removeMember, config: { minRole: 'admin' } }, async (request, reply) => {
    await service.removeMember(request.credential!, request.params.id, request.ip)
    return reply.status(204).send(null)
  })

  app.get('/account/audit-log', { schema: schemas.auditLog, config: { minRole: 'admin' } }, async (request) => {
    return service.auditLog(request.credential!.orgId, request.query)
  })
}
