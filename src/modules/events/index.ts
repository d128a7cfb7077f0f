import type { FastifyInstance } from 'fastify'
import { eventsRepository } from './events.repository.js'
import { eventsService } from './events.service.js'
import { eventsRoutes } from './events.routes.js'

/** The event log under the `events` resource (decisions.md section 8); also served at /outbound-webhooks/events. */
export default async function events (app: FastifyInstance) {
  const service = eventsService({ events: eventsRepository(app.db) })
  await app.register(eventsRoutes, { service })
}
