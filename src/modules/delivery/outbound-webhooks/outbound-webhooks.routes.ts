import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../../lib/marked-cache.js'
import type { OutboundWebhooksService } from './outbound-webhooks.service.js'
import * as schemas from './outbound-webhooks.schemas.js'
import { LOG_SCOPES } from '../../events/index.js'

export const outboundWebhooksRoutes: FastifyPluginAsyncTypebox<{ service: OutboundWebhooksService }> = async (app, { service }) => {
  // The log accepts `events:read` beside `outbound-webhooks:read` (docs/contract/event-visibility.md#the-event-log).
  app.get(
    '/outbound-webhooks/events',
    { schema: schemas.listEvents, config: { scopesOf: LOG_SCOPES, keptUnder: 'events' } },
    async (request, reply) => {
      return sendKept(
        reply as FastifyReply,
        await service.listEvents(request.credential!, request.store!.id, request.query, request.keptSeen)
      )
    }
  )

  app.post('/outbound-webhooks', {
    schema: schemas.createWebhook,
    config: { feature: 'outbound-webhooks', errors: ['invalid_url', 'invalid_event_type'] }
  }, async (request, reply) => {
    const webhook = await service.create(request.credential!, request.store!.id, request.body)
    return reply.status(201).send(webhook)
  })

  app.get('/outbound-webhooks', { schema: schemas.listWebhooks }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/outbound-webhooks/:id', { schema: schemas.getWebhook }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  const ifMatch = schemas.getWebhook.response[200]
  app.delete('/outbound-webhooks/:id', { schema: schemas.retireWebhook, config: { ifMatch } }, async (request, reply) => {
    await service.retire(request.credential!, request.store!.id, request.params.id, request.precondition)
    return reply.status(204).send(null)
  })

  app.get('/outbound-webhooks/:id/deliveries', { schema: schemas.listDeliveries }, async (request) => {
    return service.deliveries(request.store!.id, request.params.id, request.query)
  })
}
