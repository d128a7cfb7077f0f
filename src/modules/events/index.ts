import type { FastifyInstance } from 'fastify'
import { eventsRoutes } from './events.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { Knex } from 'knex'
import { afterCommit, marker, type Freshness } from '../../lib/freshness.js'
import { defineModule } from '../../lib/module.js'
import { eventLog, type EventLog, eventsRepository, type EventsRepository } from './events.repository.js'
import { eventsService } from './events.service.js'

export { assertMayReadEvent, type EventReader, LOG_SCOPES, visibleEventTypes } from './event-access.js'
export { EVENT_TYPES, isEventType } from './event-types.js'
export {
  eventId,
  eventLog,
  type EventLog,
  type EventRecord,
  eventsRepository,
  type EventsRepository,
  lockEventLog,
  type NewEvent,
  toEvent
} from './events.repository.js'
export { eventsService } from './events.service.js'
export { listEvents as listEventsSchema } from './events.schemas.js'

/**
 * The event log under the `events` resource (docs/contract/event-visibility.md#the-event-log); also served at
 * /outbound-webhooks/events.
 */
export default async function events (app: FastifyInstance) {
  await app.register(eventsRoutes, { service: app.services.eventHistoryService })
}

/**
 * Kept event pages and polls (GET /events, connector triggers) are read again on every instance once an append
 * commits: the store's events marker moves then, once per transaction however many events it appended.
 */
export function eventsReactions (bus: DomainBus, { freshness }: { freshness: Freshness }) {
  const appendedIn = new WeakMap<Knex, Set<string>>()
  bus.on('events.appended', async (trx, { events }) => {
    const storeId = events[0]?.storeEnvId
    if (!storeId) return
    const stores = appendedIn.get(trx) ?? new Set<string>()
    if (stores.has(storeId)) return
    stores.add(storeId)
    appendedIn.set(trx, stores)
    afterCommit(trx, () => freshness.bump([marker.events(storeId)]))
  })
}

declare module '../../lib/module.js' {
  interface Services {
    events: EventLog
    eventHistory: EventsRepository
    eventHistoryService: ReturnType<typeof eventsService>
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { events: true }
}

export const manifest = defineModule({
  name: 'events',
  resources: {
    events: {
      read: 'viewer',
      write: 'admin',
      area: 'Events & integrations',
      description: 'Events of the resources the key can read, in the event log.'
    }
  },
  services: {
    // Appends events in the writer's transaction; the modules reacting to `events.appended` (delivery) run there too.
    events: ({ clock, bus }) => eventLog(clock, bus),
    eventHistory: ({ db }) => eventsRepository(db),
    eventHistoryService: ({ eventHistory }) => eventsService({ events: eventHistory })
  },
  emits: ['events.appended'],
  reactions: eventsReactions,
  routes: [{ plugin: events, prefix: '/v1' }]
})
