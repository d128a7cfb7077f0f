import type { FastifyInstance } from 'fastify'
import { deprecationHeaders } from '../../delivery/sign.js'
import { outboundWebhooksRoutes } from './outbound-webhooks.routes.js'
import { operationsRoutes } from './operations.routes.js'

/**
 * Outbound webhooks and the event log (service-api.md sections 4 and 6, decisions.md section 8). Until the body-only
 * signature's sunset every response here carries its deprecation headers (service-api.md section 9.7).
 */
export default async function outboundWebhooks (app: FastifyInstance) {
  app.addHook('onSend', async (request, reply) => {
    reply.headers(deprecationHeaders(app.clock(), app.config.publicUrl))
  })
  await app.register(outboundWebhooksRoutes, { service: app.services.outboundWebhooks })
  await app.register(operationsRoutes, { service: app.services.webhookOperations })
}
