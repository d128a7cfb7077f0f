import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'

export type ReviewStatus = 'pending' | 'published' | 'rejected'
export type ReviewSource = 'storefront' | 'import' | 'api'

export interface ReviewRow {
  id: string
  org_id: string
  store_env_id: string
  product_id: string
  order_id: string | null
  rating: number
  title: string | null
  body: string
  author_name: string
  author_email: string | null
  verified: boolean | number
  status: ReviewStatus
  helpful_count: number
  media: string
  source: ReviewSource
  reply: string | null
  replied_at: number | null
  import_id: string | null
  written_at: number
  created_at: number
  updated_at: number
}

export interface ReviewFilter { orderId?: string, productId?: string, verified?: boolean, status?: ReviewStatus, rating?: number }

type Cell = Pick<ReviewRow, 'status' | 'rating' | 'verified'>
const cellOf = (row: Cell) => `${row.status}|${Number(row.rating)}|${Number(row.verified) ? 1 : 0}`

/**
 * review_tallies (migrations/20261125010000_review_tallies.ts): moves each (status, rating, verified) cell by its
 * delta in the writer's transaction, so totals are exact at every commit. Cells in a fixed order, so concurrent
 * writers lock them in the same order.
 */
async function tally (trx: Knex, storeId: string, deltas: Map<string, number>) {
  for (const cell of [...deltas.keys()].sort()) {
    const delta = deltas.get(cell)!
    if (delta === 0) continue
    const [status, rating, verified] = cell.split('|')
    await trx('review_tallies')
      .insert({ store_env_id: storeId, status, rating: Number(rating), verified: verified === '1', n: delta })
      .onConflict(['store_env_id', 'status', 'rating', 'verified'])
      .merge({ n: trx.raw('?? + ?', ['review_tallies.n', delta]) })
  }
}

function add (deltas: Map<string, number>, cell: string, by: number) {
  deltas.set(cell, (deltas.get(cell) ?? 0) + by)
}

/** The filters the tallies answer alone; a product or order filter counts its own (small, indexed) rows. */
function talliesAnswer (filter: ReviewFilter): boolean {
  return filter.orderId === undefined && filter.productId === undefined
}

export function reviewsRepository (db: Knex) {
  async function cellNow (storeId: string, id: string, trx: Knex): Promise<string | null> {
    const row = await trx<ReviewRow>('reviews').where({ store_env_id: storeId, id }).first('status', 'rating', 'verified')
    return row ? cellOf(row) : null
  }

  return {
    async insert (rows: ReviewRow[], trx: Knex) {
      // Chunked: SQLite caps bound variables per statement.
      for (let i = 0; i < rows.length; i += 40) await trx('reviews').insert(rows.slice(i, i + 40))
      const byStore = new Map<string, Map<string, number>>()
      for (const row of rows) {
        if (!byStore.has(row.store_env_id)) byStore.set(row.store_env_id, new Map())
        add(byStore.get(row.store_env_id)!, cellOf(row), 1)
      }
      for (const [storeId, deltas] of byStore) await tally(trx, storeId, deltas)
    },

    find (storeId: string, id: string, trx: Knex = db): Promise<ReviewRow | undefined> {
      return trx<ReviewRow>('reviews').where({ store_env_id: storeId, id }).first()
    },

    /** decisions.md section 6: newest `writtenAt` first (an import's original date), id breaking ties. */
    async list (storeId: string, filter: ReviewFilter, page: { offset: number, limit: number }) {
      const base = db<ReviewRow>('reviews').where({ store_env_id: storeId })
      if (filter.orderId !== undefined) base.where({ order_id: filter.orderId })
      if (filter.productId !== undefined) base.where({ product_id: filter.productId })
      if (filter.verified !== undefined) base.where({ verified: filter.verified })
      if (filter.status !== undefined) base.where({ status: filter.status })
      if (filter.rating !== undefined) base.where({ rating: filter.rating })
      const order = (q: Knex.QueryBuilder) => q.orderBy('written_at', 'desc').orderBy('id', 'desc')
      if (!talliesAnswer(filter)) return countAndPage<ReviewRow>(base, page, order)
      const tallies = db('review_tallies').where({ store_env_id: storeId })
      if (filter.verified !== undefined) tallies.where({ verified: filter.verified })
      if (filter.status !== undefined) tallies.where({ status: filter.status })
      if (filter.rating !== undefined) tallies.where({ rating: filter.rating })
      const [[{ total }], rows] = await Promise.all([
        tallies.sum<Array<{ total: number | string | null }>>({ total: 'n' }),
        order(base).offset(page.offset).limit(page.limit)
      ])
      return { total: Number(total ?? 0), rows: rows as ReviewRow[] }
    },

    async update (storeId: string, id: string, patch: Partial<ReviewRow>, trx: Knex) {
      const moves = patch.status !== undefined || patch.rating !== undefined || patch.verified !== undefined
      const before = moves ? await cellNow(storeId, id, trx) : null
      await trx('reviews').where({ store_env_id: storeId, id }).update(patch)
      if (before === null) return
      const after = await cellNow(storeId, id, trx)
      if (after === null || after === before) return
      await tally(trx, storeId, new Map([[before, -1], [after, 1]]))
    },

    async remove (storeId: string, id: string, trx: Knex): Promise<boolean> {
      const before = await cellNow(storeId, id, trx)
      const removed = (await trx('reviews').where({ store_env_id: storeId, id }).delete()) === 1
      if (removed && before !== null) await tally(trx, storeId, new Map([[before, -1]]))
      return removed
    },

    /** True only for a visitor's first vote on the review; the count moves in the same transaction. */
    async vote (storeId: string, reviewId: string, voterHash: string, now: number, trx: Knex): Promise<boolean> {
      const key = { review_id: reviewId, voter_hash: voterHash }
      if (await trx('review_votes').where(key).first('review_id')) return false
      try {
        await trx('review_votes').insert({ ...key, store_env_id: storeId, created_at: now })
      } catch (err) {
        // A concurrent first vote from the same visitor won the primary key.
        if (/ER_DUP_ENTRY|SQLITE_CONSTRAINT/.test(String((err as { code?: string }).code))) return false
        throw err
      }
      await trx('reviews').where({ store_env_id: storeId, id: reviewId }).increment('helpful_count', 1)
      return true
    },

    byOrders (storeId: string, orderIds: string[], trx: Knex): Promise<ReviewRow[]> {
      return orderIds.length ? trx<ReviewRow>('reviews').where({ store_env_id: storeId }).whereIn('order_id', orderIds) : Promise.resolve([])
    },

    async orderEmails (storeId: string, orderIds: string[], trx: Knex = db): Promise<Map<string, string | null>> {
      const ids = [...new Set(orderIds)]
      const rows = ids.length ? await trx('orders').where({ store_env_id: storeId }).whereIn('platform_order_id', ids).select('platform_order_id', 'customer_email') : []
      return new Map(rows.map((r: { platform_order_id: string, customer_email: string | null }) => [r.platform_order_id, r.customer_email]))
    }
  }
}
export type ReviewsRepository = ReturnType<typeof reviewsRepository>
