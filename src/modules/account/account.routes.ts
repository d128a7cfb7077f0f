import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AccountService } from './account.service.js'
import * as schemas from './account.schemas.js'

export const accountRoutes: FastifyPluginAsyncTypebox<{ service: AccountService }> = async (app, { service }) => {
  app.get('/account/stores', {
    schema: schemas.listStores,
    config: { storeScoped: false, scopeExempt: true, subscriptionExempt: true }
  }, async (request) => service.stores(request.credential!, request.query))

  // The store is named by the path, so x-store-env-id is not needed; the service checks it is in reach.
  app.get('/account/stores/:id/origins', {
    schema: schemas.getOrigins,
    config: { storeScoped: false }
  }, async (request) => service.storeOrigins(request.credential!, request.params.id))

  app.put('/account/stores/:id/origins', {
    schema: schemas.putOrigins,
    config: { storeScoped: false, minRole: 'admin' }
  }, async (request) => service.setStoreOrigins(request.credential!, request.params.id, request.body.origins, request.ip))

  app.get('/account/members', { schema: schemas.listMembers }, async (request) => {
    return service.members(request.credential!.orgId, request.query)
  })

  app.delete(
    '/account/members/:id',
    { schema: schemas.removeMember, config: { minRole: 'admin', errors: ['conflict'] } },
    async (request, reply) => {
      await service.removeMember(request.credential!, request.params.id, request.ip)
      return reply.status(204).send(null)
    }
  )

  app.get('/account/audit-log', { schema: schemas.auditLog, config: { minRole: 'admin' } }, async (request) => {
    return service.auditLog(request.credential!.orgId, request.query)
  })
}
