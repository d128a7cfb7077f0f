import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { WebhookOperations } from './operations.service.js'
import * as schemas from './operations.schemas.js'

/**
 * Recovering a receiver: redeliver, replay, re-enable (docs/contract/webhooks-and-delivery.md#webhook-operations).
 * Growth plan, as the webhooks.
 */
export const operationsRoutes: FastifyPluginAsyncTypebox<{ service: WebhookOperations }> = async (app, { service }) => {
  app.post('/outbound-webhooks/:id/deliveries/:deliveryId/redeliver', {
    schema: schemas.redeliver,
    config: { feature: 'outbound-webhooks', errors: ['conflict'] }
  }, async (request, reply) => {
    const queued = await service.redeliver(request.credential!, request.store!.id, request.params.id, request.params.deliveryId, request.ip)
    return reply.status(202).send(queued)
  })

  app.post('/outbound-webhooks/:id/replay', {
    schema: schemas.replay,
    config: { feature: 'outbound-webhooks', errors: ['conflict', 'invalid_event_type'] }
  }, async (request, reply) => {
    const queued = await service.replay(request.credential!, request.store!.id, request.params.id, request.body, request.ip)
    return reply.status(202).send(queued)
  })

  app.post(
    '/outbound-webhooks/:id/enable',
    { schema: schemas.enable, config: { feature: 'outbound-webhooks', errors: ['conflict'] } },
    async (request) => {
      return service.enable(request.credential!, request.store!.id, request.params.id, request.ip)
    }
  )
}
