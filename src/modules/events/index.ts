import type { FastifyInstance } from 'fastify'
import { eventsRoutes } from './events.routes.js'

export { assertMayReadEvent, type EventReader, LOG_SCOPES, visibleEventTypes } from './event-access.js'
export { EVENT_TYPES, isEventType } from './event-types.js'
export { eventId, eventLog, type EventLog, type EventRecord, eventsRepository, type EventsRepository, lockEventLog, type NewEvent, toEvent } from './events.repository.js'
export { eventsService } from './events.service.js'
export { listEvents as listEventsSchema } from './events.schemas.js'

/**
 * The event log under the `events` resource (docs/contract/event-visibility.md#the-event-log); also served at
 * /outbound-webhooks/events.
 */
export default async function events (app: FastifyInstance) {
  await app.register(eventsRoutes, { service: app.services.eventHistoryService })
}
