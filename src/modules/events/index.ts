import type { FastifyInstance } from 'fastify'
import { eventsRoutes } from './events.routes.js'

/** The event log under the `events` resource (decisions.md section 8); also served at /outbound-webhooks/events. */
export default async function events (app: FastifyInstance) {
  await app.register(eventsRoutes, { service: app.services.eventHistoryService })
}
