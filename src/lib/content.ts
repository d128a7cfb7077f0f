import type { Knex } from 'knex'
import { countAndPage, envelope, toPage, type PageQuery } from './pagination.js'
import { toMs } from './formats.js'
import { iso } from './clock.js'
import { lockForShare, lockForWrite, lockStore } from './bulk.js'

/**
 * What the content resources of docs/contract/resources.md#content share (galleries, FAQs, categories, web pages,
 * placements): rows keyed by (store_env_id, id) with created_at/updated_at, lists filtered by `updatedSince` in a
 * stable order, and one event per change. Each module keeps its own columns, rules and presentation.
 */
export interface ContentRow { id: string, org_id: string, store_env_id: string, created_at: number, updated_at: number }

export interface SinceQuery extends PageQuery { updatedSince?: string }

/**
 * docs/contract/api-conventions.md#incremental-sync: `updatedSince` lists rows changed at or after the instant, oldest
 * change first with the id breaking ties, so a client that stores the last `updatedAt` it saw and asks again misses
 * nothing.
 */
export async function pageSince<T> (base: Knex.QueryBuilder, query: SinceQuery) {
  const page = toPage(query)
  const since = toMs(query.updatedSince)
  if (since !== null) base.where('updated_at', '>=', since)
  const { total, rows } = await countAndPage<T>(base, page, (q) => q.orderBy('updated_at', 'asc').orderBy('id', 'asc'))
  return { page, total, rows }
}

/** pageSince, presented in the page envelope. */
export async function listSince<T, P> (base: Knex.QueryBuilder, query: SinceQuery, present: (row: T) => P) {
  const { page, total, rows } = await pageSince<T>(base, query)
  return envelope(rows.map(present), total, page)
}

/**
 * For content rules that span rows (a category tree without cycles or orphans, an FAQ naming an existing category):
 * the writes they concern take turns on the store's row, locked first, and each then reads the rows as the one
 * before left them (InnoDB's snapshot starts at a transaction's first plain read). Not the event log's lock: a
 * category's delete updates FAQs and products, whose writers hold their rows before they append events.
 */
export function lockStoreContent (trx: Knex.Transaction, store: { id: string }): Promise<void> {
  return lockStore(trx, store.id)
}

export function stamps (row: { created_at: number, updated_at: number }) {
  return { createdAt: iso(row.created_at)!, updatedAt: iso(row.updated_at)! }
}

/** find / insert / update / remove of one table's rows, always within one store. */
export function contentTable<R extends ContentRow> (db: Knex, table: string) {
  return {
    /**
     * `lock`: a locking read (MySQL), for a writer that changes the row after writing rows that refer to it; 'share':
     * a shared one, for writers of rows that refer to it, which then run side by side while its delete waits.
     */
    find (storeId: string, id: string, trx: Knex = db, lock: boolean | 'share' = false): Promise<R | undefined> {
      const query = trx<R>(table).where({ store_env_id: storeId, id } as never)
      return (lock === 'share' ? lockForShare(query) : lockForWrite(query, lock)).first() as Promise<R | undefined>
    },

    findMany (storeId: string, ids: string[], trx: Knex = db): Promise<R[]> {
      return ids.length
        ? trx<R>(table).where({ store_env_id: storeId } as never).whereIn('id', ids) as unknown as Promise<R[]>
        : Promise.resolve([])
    },

    async insert (row: R, trx: Knex) {
      await trx(table).insert(row)
    },

    async update (storeId: string, id: string, patch: Partial<R>, trx: Knex) {
      await trx(table).where({ store_env_id: storeId, id }).update(patch)
    },

    async remove (storeId: string, id: string, trx: Knex): Promise<boolean> {
      return (await trx(table).where({ store_env_id: storeId, id }).delete()) === 1
    },

    /** The store's rows, for a list to add its filters to. */
    base (storeId: string): Knex.QueryBuilder {
      return db(table).where({ store_env_id: storeId })
    },

    /** A page of the store's rows where each column given (not undefined) equals its value. */
    listWhere<P> (storeId: string, where: Record<string, unknown>, query: SinceQuery, present: (row: R) => P) {
      const base = db(table).where({ store_env_id: storeId })
      for (const [column, value] of Object.entries(where)) if (value !== undefined) base.where(column, value as Knex.Value)
      return listSince(base, query, present)
    }
  }
}

/** The columns of a patch that differ from the row, as a partial row (empty: nothing to write). */
export function changedColumns<R extends object> (before: R, after: Partial<R>): Partial<R> {
  const changes: Partial<R> = {}
  for (const [key, value] of Object.entries(after) as Array<[keyof R, R[keyof R]]>) {
    // MySQL returns booleans as 0/1.
    const same = typeof value === 'boolean' ? value === Boolean(before[key]) : value === before[key]
    if (value !== undefined && !same) changes[key] = value
  }
  return changes
}
