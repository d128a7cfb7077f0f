import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { isDuplicateKey } from '../../db.js'
import { changedColumns, type ContentRow, type contentTable, type SinceQuery } from '../../lib/content.js'
import { withDeadlockRetry } from '../../lib/bulk.js'
import type { Clock } from '../../lib/clock.js'
import type { Precondition } from '../../lib/conditional.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'

interface Deps<R extends ContentRow, P> {
  db: Knex
  events: EventLog
  clock: Clock
  repo: ReturnType<typeof contentTable<R>>
  /**
   * The event prefix (docs/contract/event-visibility.md#every-change-appends-an-event:
   * `<resource-singular>.<created|updated|deleted>`).
   */
  singular: string
  /** For "<label> not found". */
  label: string
  present: (row: R) => P
  /**
   * A lock every write of the resource takes first, before its row's: for rules that span rows (a category tree has
   * no cycles), so the writes that could break them take turns, and each one's reads come after the one before.
   */
  serialize?: (trx: Knex.Transaction, store: StoreEnv) => Promise<void>
}

/**
 * The create / update / delete steps every content resource takes: each write and its event in one transaction, an
 * update that changes nothing appends nothing, and a row of another store is "not found" (never "forbidden").
 * `check` runs inside the transaction with the row as it would be stored, for the resource's own rules.
 */
export function contentWriter<R extends ContentRow, P extends Record<string, unknown>> (
  { db, events, clock, repo, singular, label, present, serialize }: Deps<R, P>
) {
  async function load (storeId: string, id: string, trx?: Knex, lock = false): Promise<R> {
    const row = await repo.find(storeId, id, trx, lock)
    if (!row) throw new errors.NotFound(label)
    return row
  }

  /**
   * A unique key (a slug, a page's URL) is checked before the write, but two writes of the same value at once both
   * pass that check and the database refuses the second. Checked again once the winner has committed, the loser
   * gets the resource's own 409, as it would have a moment later.
   */
  async function lostRace<T> (write: () => Promise<T>, recheck?: (trx: Knex.Transaction) => Promise<void>): Promise<T> {
    try {
      return await write()
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
      if (recheck) await db.transaction(recheck)
      throw new errors.Conflict(`This ${singular.replace(/_/g, ' ')} conflicts with one written at the same moment`)
    }
  }

  const emit = (trx: Knex.Transaction, store: StoreEnv, action: string, data: Record<string, unknown>) =>
    events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: `${singular}.${action}`, data })

  return {
    load,

    get: async (storeId: string, id: string): Promise<P> => present(await load(storeId, id)),

    /** A page of the store's rows filtered by column (a filter left undefined is no filter). */
    list: (storeId: string, where: Record<string, unknown>, query: SinceQuery) => repo.listWhere(storeId, where, query, present),

    async create (
      store: StoreEnv,
      fields: Omit<R, keyof ContentRow>,
      id: string,
      check?: (row: R, trx: Knex.Transaction) => Promise<void>
    ): Promise<P> {
      const now = clock()
      const row = { ...fields, id, org_id: store.orgId, store_env_id: store.id, created_at: now, updated_at: now } as R
      return lostRace(() =>
        db.transaction(async (trx) => {
          await serialize?.(trx, store)
          await check?.(row, trx)
          await repo.insert(row, trx)
          const shown = present(row)
          await emit(trx, store, 'created', shown)
          return shown
        }), check && ((trx) => check(row, trx)))
    },

    async update (
      store: StoreEnv,
      id: string,
      patch: Partial<R>,
      check?: (after: R, before: R, trx: Knex.Transaction) => Promise<void>,
      precondition: Precondition | null = null
    ): Promise<P> {
      let checked: [R, R] | undefined
      return lostRace(() =>
        db.transaction(async (trx) => {
          await serialize?.(trx, store)
          // A locking read: changes of one row take turns, so a change sent several times at once is made (and its
          // event appended) once, and the others find it made.
          const before = await load(store.id, id, trx, true)
          // The request's If-Match, against the row as locked: of two writers sending one ETag, the second sees the first's change.
          precondition?.(present(before))
          const changes = changedColumns(before, patch)
          if (Object.keys(changes).length === 0) return present(before)
          const after = { ...before, ...changes, updated_at: clock() }
          checked = [after, before]
          await check?.(after, before, trx)
          await repo.update(store.id, id, { ...changes, updated_at: after.updated_at } as Partial<R>, trx)
          const shown = present(after)
          await emit(trx, store, 'updated', shown)
          return shown
        }), check && ((trx) => checked ? check(...checked, trx) : Promise.resolve()))
    },

    async remove (
      store: StoreEnv,
      id: string,
      before?: (row: R, trx: Knex.Transaction) => Promise<void>,
      precondition: Precondition | null = null
    ): Promise<void> {
      // A `before` hook may hold rows another writer takes in the other order (a gallery's uploads, an erasure that
      // holds the event lock first): a deadlock is retried whole.
      await withDeadlockRetry(() =>
        db.transaction(async (trx) => {
          await serialize?.(trx, store)
          // A locking read: the `before` hook works on the row as it stays until deleted, and writers that hold it
          // shared (a gallery's photo being sent) take turns with the deletion.
          const row = await load(store.id, id, trx, true)
          precondition?.(present(row))
          await before?.(row, trx)
          // Deleted by a request at the same moment: its delete counted, this one finds nothing (no second event).
          if (!(await repo.remove(store.id, id, trx))) throw new errors.NotFound(label)
          await emit(trx, store, 'deleted', present(row))
        })
      )
    },

    emit
  }
}
export type ContentWriter<R extends ContentRow, P extends Record<string, unknown>> = ReturnType<typeof contentWriter<R, P>>
