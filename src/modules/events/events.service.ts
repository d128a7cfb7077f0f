import { errors } from '../../errors.js'
import { mayReadEvent, visibleEventTypes, type EventReader } from './event-access.js'
import { MarkedCache } from '../../lib/marked-cache.js'
import { parseEventId, type EventRecord, type EventsRepository } from './events.repository.js'

const MAX_EVENTS_PAGE = 500

/** The page cache's key part for a set of visible types (visibleEventTypes answers the same array for a reader). */
const typesKeys = new WeakMap<readonly string[], string>()
function typesKey (types: readonly string[] | undefined): string {
  if (!types) return '*'
  let key = typesKeys.get(types)
  if (key === undefined) typesKeys.set(types, key = types.join(','))
  return key
}

export interface EventsPage { events: EventRecord[], next_cursor: string | null }

/**
 * The event log (docs/contract/event-visibility.md#the-event-log), served at `/events` and `/outbound-webhooks/events`.
 * Its routes ask for one of the log's scopes (LOG_SCOPES); a reader sees only the events of resources it may read, the
 * others are skipped in the query, so paging walks past them.
 */
export function eventsService ({ events }: { events: EventsRepository }) {
  // Pages as read under the store's events marker (`seen`, read by the request's limiter call): a poll at the head
  // of the log, the common case, costs no query until something is appended.
  const pages = new MarkedCache<EventsPage>(100)
  return {
    /** Oldest first; `next_cursor` is the last id returned when more (visible) events follow, else null. */
    async list (
      reader: EventReader,
      storeId: string,
      query: { since?: string, limit?: number },
      seen: string | null = null
    ): Promise<EventsPage> {
      const after = query.since === undefined || query.since === '' ? 0 : parseEventId(query.since)
      if (after === null) throw new errors.InvalidRequest('since must be a next_cursor or an event id (evt_…)')
      const limit = Math.min(MAX_EVENTS_PAGE, Math.max(1, Math.floor(query.limit ?? 100)))
      const types = visibleEventTypes(reader)
      if (types?.length === 0) return { events: [], next_cursor: null }
      return pages.through(`${storeId}\0${after}\0${limit}\0${typesKey(types)}`, seen, async () => {
        const rows = await events.listAfter(storeId, after, limit + 1, types)
        const page = rows.slice(0, limit)
        return { events: page, next_cursor: rows.length > limit ? page[page.length - 1].id : null }
      })
    },

    /** An event the reader may not read is not in its log: 404, like an id of another store. */
    async get (reader: EventReader, storeId: string, id: string): Promise<EventRecord> {
      const seq = parseEventId(id)
      const event = seq === null ? undefined : await events.find(storeId, seq)
      if (!event || !mayReadEvent(reader, event.type)) throw new errors.NotFound('Event')
      return event
    }
  }
}
export type EventsService = ReturnType<typeof eventsService>
