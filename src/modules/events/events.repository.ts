import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { iso } from '../../lib/clock.js'
import { isMysql } from '../../db.js'

export interface NewEvent { orgId: string, storeEnvId: string, type: string, data: Record<string, unknown> }

export interface EventRecord { id: string, type: string, createdAt: string, storeEnvId: string, data: Record<string, unknown> }

interface Row {
  id: number | string
  seq: number | string
  org_id: string
  store_env_id: string
  type: string
  data: string
  created_at: number
}

export const EVENT_ID_PREFIX = 'evt_'

/** The public id of an event: its number within its store (`events.seq`), never the table's global id. */
export function eventId (seq: number | string): string {
  return `${EVENT_ID_PREFIX}${seq}`
}

/** Accepts `evt_123` or `123`; null for anything else. */
export function parseEventId (value: string): number | null {
  const raw = value.startsWith(EVENT_ID_PREFIX) ? value.slice(EVENT_ID_PREFIX.length) : value
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null
}

export function toEvent (row: Row): EventRecord {
  return {
    id: eventId(row.seq),
    type: row.type,
    createdAt: iso(Number(row.created_at))!,
    storeEnvId: row.store_env_id,
    data: JSON.parse(row.data)
  }
}

/**
 * Listeners run inside the appending transaction (e.g. the webhook outbox fans out there), once per append call
 * with all its events (one store's), so a bulk batch costs a listener one round of queries, not one per event.
 */
/** An appended event as listeners get it: `rowId` is the table's own id, which the outbox refers to. */
export type AppendedEvent = EventRecord & { orgId: string, rowId: number }

/**
 * Serialises the event appenders of one store from here to commit, so their auto-increment ids commit in order
 * (MySQL): a reader resuming after id N never later sees a smaller id appear. The row is `event_heads`', which no
 * foreign key points at (see its migration); SQLite has a single writer anyway. `count` keeps a running total.
 */
export async function lockEventLog (trx: Knex.Transaction, storeEnvId: string, count = 0): Promise<void> {
  await trx('event_heads').insert({ store_env_id: storeEnvId, seq: count })
    .onConflict('store_env_id').merge({ seq: trx.raw('?? + ?', ['event_heads.seq', count]) })
}

/**
 * Takes the next `count` numbers of the store's event log, under the same lock as `lockEventLog`, in one statement:
 * the last one taken. MySQL hands the new head back as the insert id (LAST_INSERT_ID(expr); 0 when the row is new),
 * SQLite with RETURNING.
 */
export async function takeEventSeqs (trx: Knex.Transaction, storeEnvId: string, count: number): Promise<number> {
  if (isMysql(trx)) {
    const [head] = await trx('event_heads').insert({ store_env_id: storeEnvId, seq: count })
      .onConflict('store_env_id').merge({ seq: trx.raw('LAST_INSERT_ID(?? + ?)', ['event_heads.seq', count]) })
    return Number(head) || count
  }
  const [row] = await trx('event_heads').insert({ store_env_id: storeEnvId, seq: count })
    .onConflict('store_env_id').merge({ seq: trx.raw('?? + ?', ['event_heads.seq', count]) }).returning('seq')
  return Number((row as { seq: number | string }).seq)
}

/**
 * True when one multi-row INSERT gets consecutive auto-increment ids, so its first id (the insert's answer) says
 * them all: InnoDB's lock modes 0 and 1 promise that for inserts whose row count is known (MariaDB's default is 1);
 * mode 2 (MySQL 8's default, Galera) interleaves other tables' inserts, and then the ids are read back. Asked once
 * per database client.
 */
const consecutive = new WeakMap<object, Promise<boolean>>()
function consecutiveIds (trx: Knex.Transaction): Promise<boolean> {
  if (!isMysql(trx)) return Promise.resolve(false)
  // Keyed by the client's configuration: each transaction has a client object of its own, the configuration is shared.
  const key = trx.client.config as object
  let known = consecutive.get(key)
  if (!known) {
    known = trx.raw('SELECT @@innodb_autoinc_lock_mode AS mode').then(([rows]: [Array<{ mode: number | string }>]) =>
      Number(rows[0].mode) <= 1
    )
      .catch(() => {
        consecutive.delete(key)
        return false
      })
    consecutive.set(key, known)
  }
  return known
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** Events were appended to a store's log (in the writer's transaction): delivery fans them out. */
    'events.appended': { payload: { events: AppendedEvent[] } }
  }
}

/** One per app instance (with its own bus): several apps in one process (tests) must not hear each other's appends. */
export function eventLog (clock: () => number, bus: DomainBus) {
  return {
    /** Appends an event inside the caller's transaction, under the store's event lock (`lockEventLog`). */
    async append (trx: Knex.Transaction, event: NewEvent): Promise<EventRecord> {
      const now = clock()
      const seq = await takeEventSeqs(trx, event.storeEnvId, 1)
      const [id] = await trx('events').insert({
        org_id: event.orgId,
        store_env_id: event.storeEnvId,
        seq,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: now
      })
      const record = { id: eventId(seq), type: event.type, createdAt: iso(now)!, storeEnvId: event.storeEnvId, data: event.data }
      await bus.emit('events.appended', trx, { events: [{ ...record, orgId: event.orgId, rowId: Number(id) }] })
      return record
    },

    /**
     * Appends several events of one store with one counter bump and one multi-row insert (bulk upserts write up to
     * 250 at a time). The event lock is held from here to commit, so the newest ids are exactly these. Bulk
     * writers call this last, after their item rows: a store's writers are then serialised only from here to commit.
     */
    async appendMany (
      trx: Knex.Transaction,
      storeEnvId: string,
      orgId: string,
      events: Array<{ type: string, data: Record<string, unknown> }>
    ): Promise<EventRecord[]> {
      if (events.length === 0) return []
      const now = clock()
      const first = await takeEventSeqs(trx, storeEnvId, events.length) - events.length + 1
      const rows = events.map((event, i) => ({
        org_id: orgId,
        store_env_id: storeEnvId,
        seq: first + i,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: now
      }))
      // SQLite refuses a compound SELECT of more than 500 terms (knex's multi-row insert there): chunks of 200. MySQL
      // takes the batch in one statement, one round trip less while the store's appenders wait on this lock.
      let ids: Array<number | string>
      if (await consecutiveIds(trx)) {
        const [first] = await trx('events').insert(rows)
        ids = rows.map((_, i) => Number(first) + i)
      } else {
        const chunk = isMysql(trx) ? rows.length : 200
        for (let i = 0; i < rows.length; i += chunk) await trx('events').insert(rows.slice(i, i + chunk))
        ids = (await trx('events').where({ store_env_id: storeEnvId }).orderBy('id', 'desc').limit(events.length).pluck('id')).reverse()
      }
      const createdAt = iso(now)!
      const records = events.map((event, i) => ({ id: eventId(first + i), type: event.type, createdAt, storeEnvId, data: event.data }))
      const withOrg = records.map((record, i) => ({ ...record, orgId, rowId: Number(ids[i]) }))
      await bus.emit('events.appended', trx, { events: withOrg })
      return records
    }
  }
}
export type EventLog = ReturnType<typeof eventLog>

/** Created by migrations/20261203010000_event_store_seq.ts: a store's events in the order of their ids. */
export const CURSOR_INDEX = 'events_store_env_id_seq_unique'

/** Reading the log: one store's events after a sequence number, oldest first. */
export function eventsRepository (db: Knex) {
  /** `types`: only events of these types (what the reader may see); undefined for every type. */
  function afterQuery (storeId: string, afterSeq: number, limit: number, types?: readonly string[]) {
    // (store_env_id, seq) answers the order and stops after `limit` matches. With a type list MariaDB otherwise
    // prefers (store_env_id, type, id) and sorts every later event of those types: ~1 s at a million events.
    const table = isMysql(db)
      ? db.raw('?? FORCE INDEX (??)', ['events', CURSOR_INDEX])
      : db.raw('?? INDEXED BY ??', ['events', CURSOR_INDEX])
    const query = db.from(table).where({ store_env_id: storeId }).where('seq', '>', afterSeq)
    if (types) query.whereIn('type', [...types])
    return query.orderBy('seq').limit(limit)
  }

  return {
    afterQuery,

    async listAfter (storeId: string, afterSeq: number, limit: number, types?: readonly string[]): Promise<EventRecord[]> {
      const rows: Row[] = await afterQuery(storeId, afterSeq, limit, types)
      return rows.map(toEvent)
    },

    async find (storeId: string, seq: number): Promise<EventRecord | undefined> {
      const row = await db<Row>('events').where({ store_env_id: storeId, seq }).first()
      return row ? toEvent(row) : undefined
    }
  }
}
export type EventsRepository = ReturnType<typeof eventsRepository>
