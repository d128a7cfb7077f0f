import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import type { ReviewRequestState } from './review-request.js'
import { countAndPage } from '../../lib/pagination.js'
import { syncPage, type SyncQuery } from '../../lib/sync.js'

export interface OrderRow {
  id?: number
  org_id: string
  store_env_id: string
  platform_order_id: string
  customer_email: string | null
  customer_name: string | null
  platform_customer_id?: string | null
  customer_id?: string | null
  total: number | null
  currency: string | null
  placed_at: number | null
  fulfilled_at: number | null
  line_items: string
  review_request_state: ReviewRequestState | null
  review_request_reason: string | null
  review_request_scheduled_for: number | null
  review_request_updated_at: number | null
  affiliate_code: string | null
  review_request_sequence_id?: string | null
  review_request_step?: number | null
  /** The platform's own `updated_at` (ms) when the item carried one: an older one never overwrites it. */
  platform_updated_at?: number | null
  created_at: number
  updated_at: number
}

export const ORDER_FIELDS = ['customer_email', 'customer_name', 'total', 'currency', 'placed_at', 'fulfilled_at', 'line_items',
  'review_request_state', 'review_request_reason', 'review_request_scheduled_for', 'platform_customer_id', 'customer_id',
  'affiliate_code', 'review_request_sequence_id', 'review_request_step',
  'platform_updated_at'] as const

export function ordersRepository (db: Knex) {
  function filtered (storeId: string, filter: { state?: string }) {
    const base = db<OrderRow>('orders').where({ store_env_id: storeId })
    if (filter.state) base.where('review_request_state', filter.state)
    return base
  }

  return {
    /** `lock`: a bulk upsert's read of the rows it is about to write (lib/bulk.ts). */
    async findByKeys (storeId: string, keys: string[], trx: Knex = db, lock = false): Promise<Map<string, OrderRow>> {
      const rows = keys.length ? await lockForWrite(rowsByKeys<OrderRow>(trx, 'orders', storeId, 'platform_order_id', keys), lock) : []
      return new Map(rows.map((row) => [row.platform_order_id, row]))
    },

    async upsert (rows: OrderRow[], trx: Knex) {
      if (rows.length === 0) return
      await trx('orders').insert(rows).onConflict(['store_env_id', 'platform_order_id']).merge([
        ...ORDER_FIELDS,
        'review_request_updated_at',
        'updated_at'
      ])
    },

    find (storeId: string, key: string, trx: Knex = db): Promise<OrderRow | undefined> {
      return trx<OrderRow>('orders').where({ store_env_id: storeId, platform_order_id: key }).first()
    },

    async list (storeId: string, filter: { state?: string }, page: { offset: number, limit: number }) {
      return countAndPage<OrderRow>(filtered(storeId, filter), page, (q) => q.orderBy('updated_at', 'desc').orderBy('id', 'desc'))
    },

    sync (storeId: string, filter: { state?: string }, query: SyncQuery, limit: number, invalid: (message: string) => Error) {
      return syncPage<OrderRow>(filtered(storeId, filter), query, limit, { numericId: true, invalid })
    },

    /** Removes the order and answers the row it was; undefined when the store had no such order. */
    async remove (storeId: string, key: string, trx: Knex): Promise<OrderRow | undefined> {
      const row = await lockForWrite(trx<OrderRow>('orders').where({ store_env_id: storeId, platform_order_id: key }), true).first()
      if (row) await trx('orders').where({ store_env_id: storeId, platform_order_id: key }).delete()
      return row
    },

    /** Requests due at `now`, oldest first, across every store or in one (the scheduler claims each in turn). */
    due (
      now: number,
      limit: number,
      storeId?: string
    ): Promise<Array<{ id: number, store_env_id: string, review_request_step: number | null }>> {
      const query = db('orders').where({ review_request_state: 'scheduled' }).where('review_request_scheduled_for', '<=', now)
      if (storeId) query.where({ store_env_id: storeId })
      return query.orderBy('review_request_scheduled_for').limit(limit).select('id', 'store_env_id', 'review_request_step')
    },

    /**
     * The row if still scheduled for the same step and still due; on MySQL locked, skipping a row another instance
     * is sending. The step and due time matter with sequences: an instance that listed the order before another
     * sent its step finds the next step scheduled later, not due, and leaves it.
     */
    claim (id: number, trx: Knex.Transaction, step: number | null = null, now = Number.MAX_SAFE_INTEGER): Promise<OrderRow | undefined> {
      const query = trx<OrderRow>('orders').where({ id, review_request_state: 'scheduled' }).where(
        'review_request_scheduled_for',
        '<=',
        now
      )
      if (step === null) query.whereNull('review_request_step')
      else query.where('review_request_step', step)
      if (trx.client.config.client === 'mysql2') query.forUpdate().skipLocked()
      return query.first()
    },

    async advanceReviewRequest (
      id: number,
      next: { state: ReviewRequestState, reason: string, step: number | null, scheduledFor: number | null },
      now: number,
      trx: Knex.Transaction
    ) {
      await trx('orders').where({ id }).update({
        review_request_state: next.state,
        review_request_reason: next.reason,
        review_request_step: next.step,
        review_request_scheduled_for: next.scheduledFor,
        review_request_updated_at: now,
        updated_at: now
      })
    }
  }
}
export type OrdersRepository = ReturnType<typeof ordersRepository>
