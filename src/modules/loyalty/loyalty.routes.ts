import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { LoyaltyService } from './loyalty.service.js'
import * as schemas from './loyalty.schemas.js'

export const loyaltyRoutes: FastifyPluginAsyncTypebox<{ service: LoyaltyService }> = async (app, { service }) => {
  app.get('/loyalty/settings', { schema: schemas.getSettings, config: { etag: true } }, async (request) => {
    return service.getSettings(request.store!.id)
  })

  app.put('/loyalty/settings', { schema: schemas.putSettings }, async (request) => {
    return service.putSettings(request.store!, request.body)
  })

  app.get('/loyalty/accounts', { schema: schemas.listAccounts }, async (request) => {
    return service.listAccounts(request.store!.id, request.query)
  })

  app.get('/loyalty/accounts/:customerId', { schema: schemas.getAccount }, async (request) => {
    return service.getAccount(request.store!.id, request.params.customerId, request.query)
  })

  app.post('/loyalty/accounts/:customerId/transactions', {
    schema: schemas.createTransaction, config: { errors: ['insufficient_points', 'idempotency_key_reused', 'conflict'] }
  }, async (request, reply) => {
    const { applied, ...result } = await service.transact(request.store!, request.params.customerId, request.body)
    return reply.status(applied ? 201 : 200).send(result)
  })

  app.post('/loyalty/referrals', { schema: schemas.createReferral, config: { errors: ['conflict'] } }, async (request, reply) => {
    return reply.status(201).send(await service.refer(request.store!, request.body))
  })

  app.get('/loyalty/referrals', { schema: schemas.listReferrals }, async (request) => {
    return service.listReferrals(request.store!.id, request.query)
  })
}
