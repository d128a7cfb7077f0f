import type { FastifyInstance } from 'fastify'
import { receiverRoutes, webhooksRoutes } from './webhooks.routes.js'

/** Inbound platform webhooks (decisions.md section 15, "Platform sync"): secrets per store, and the receivers. */
export default async function webhooks (app: FastifyInstance) {
  await app.register(webhooksRoutes, { service: app.services.webhooks })
  await app.register(receiverRoutes, { service: app.services.webhooks })
}
