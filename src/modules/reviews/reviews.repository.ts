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

export function reviewsRepository (db: Knex) {
  return {
    async insert (rows: ReviewRow[], trx: Knex) {
      // Chunked: SQLite caps bound variables per statement.
      for (let i = 0; i < rows.length; i += 40) await trx('reviews').insert(rows.slice(i, i + 40))
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
      return countAndPage<ReviewRow>(base, page, (q) => q.orderBy('written_at', 'desc').orderBy('id', 'desc'))
    },

    async update (storeId: string, id: string, patch: Partial<ReviewRow>, trx: Knex) {
      await trx('reviews').where({ store_env_id: storeId, id }).update(patch)
    },

    async remove (storeId: string, id: string, trx: Knex): Promise<boolean> {
      return (await trx('reviews').where({ store_env_id: storeId, id }).delete()) === 1
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
