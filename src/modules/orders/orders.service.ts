import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { applyBulk, itemChecker } from '../../lib/bulk.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/events.repository.js'
import type { StoreEnv } from '../../types.js'
import type { ProductsRepository } from '../products/products.repository.js'
import { ORDER_FIELDS, type OrderRow, type OrdersRepository } from './orders.repository.js'
import { OrderItem } from './orders.schemas.js'
import { planReviewRequest, sameRequest, type LineItem, type ReviewRequest } from './review-request.js'

const MAX_BATCH = 250

/** Runs inside the upsert transaction with the orders that changed (reviews re-check `verified` here). */
export type OrdersWrittenHook = (trx: Knex.Transaction, store: StoreEnv, rows: OrderRow[]) => Promise<void>

interface Deps {
  db: Knex
  repo: OrdersRepository
  products: ProductsRepository
  events: EventLog
  clock: Clock
  reviewRequestDelayMs: number
  onWritten?: OrdersWrittenHook
}

export function requestOf (row: Pick<OrderRow, 'review_request_state' | 'review_request_reason' | 'review_request_scheduled_for'>): ReviewRequest {
  return {
    state: row.review_request_state ?? null,
    reason: row.review_request_reason ?? null,
    scheduledFor: row.review_request_scheduled_for == null ? null : Number(row.review_request_scheduled_for)
  }
}

export function presentOrder (row: OrderRow) {
  const request = requestOf(row)
  return {
    platformOrderId: row.platform_order_id,
    customerEmail: row.customer_email,
    customerName: row.customer_name,
    total: row.total == null ? null : Number(row.total),
    currency: row.currency,
    placedAt: iso(row.placed_at),
    fulfilledAt: iso(row.fulfilled_at),
    lineItems: JSON.parse(row.line_items) as LineItem[],
    reviewRequest: { state: request.state, reason: request.reason, scheduledFor: iso(request.scheduledFor) },
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

const checkOrders = itemChecker(OrderItem, 'platformOrderId')

/**
 * The total rounded half-up to the cent as DECIMAL(14,2) rounds it, from the number's shortest decimal text
 * (10.005 is stored as 10.01 on MySQL; binary arithmetic would give 10.00), so both databases keep the same value
 * and an identical re-send compares equal.
 */
function toCents (value: number): number {
  const text = String(value)
  return text.includes('e') ? Math.round(value * 100) / 100 : Math.round(Number(`${text}e2`)) / 100
}

export function ordersService ({ db, repo, products, events, clock, reviewRequestDelayMs, onWritten }: Deps) {
  async function toRows (store: StoreEnv, items: Array<typeof OrderItem.static>, existing: Map<string, OrderRow>, trx: Knex.Transaction, now: number) {
    const productKeys = [...new Set(items.flatMap((item) => (item.lineItems ?? []).map((line) => line.platformProductId)))]
    const productRows = await products.findByKeys(store.id, productKeys, trx)
    return items.map((item): OrderRow => {
      const before = existing.get(item.platformOrderId)
      const current = before ? requestOf(before) : { state: null, reason: null, scheduledFor: null }
      const lineItems = item.lineItems ?? []
      const request = planReviewRequest({ customerEmail: item.customerEmail ?? null, fulfilledAt: toMs(item.fulfilledAt), lineItems, current }, productRows, reviewRequestDelayMs)
      return {
        org_id: store.orgId,
        store_env_id: store.id,
        platform_order_id: item.platformOrderId,
        customer_email: item.customerEmail ?? null,
        customer_name: item.customerName ?? null,
        total: item.total == null ? null : toCents(item.total),
        currency: item.currency ?? null,
        placed_at: toMs(item.placedAt),
        fulfilled_at: toMs(item.fulfilledAt),
        line_items: JSON.stringify(lineItems.map((line) => ({ platformProductId: line.platformProductId, quantity: line.quantity }))),
        review_request_state: request.state,
        review_request_reason: request.reason,
        review_request_scheduled_for: request.scheduledFor,
        review_request_updated_at: sameRequest(request, current) ? before?.review_request_updated_at ?? null : now,
        created_at: before?.created_at ?? now,
        updated_at: now
      }
    })
  }

  async function write (store: StoreEnv, changed: OrderRow[], existing: Map<string, OrderRow>, trx: Knex.Transaction) {
    await repo.upsert(changed, trx)
    const appended: Array<{ type: string, data: Record<string, unknown> }> = []
    for (const row of changed) {
      const data = presentOrder(row)
      appended.push({ type: 'order.upserted', data })
      const before = existing.get(row.platform_order_id)
      const previous = before ? requestOf(before) : { state: null, reason: null, scheduledFor: null }
      if (!sameRequest(previous, requestOf(row))) appended.push({ type: 'order.review_request.updated', data })
    }
    await events.appendMany(trx, store.id, store.orgId, appended)
    if (onWritten) await onWritten(trx, store, changed)
  }

  return {
    async upsert (store: StoreEnv, items: unknown[]) {
      if (items.length > MAX_BATCH) throw new errors.BatchTooLarge(MAX_BATCH)
      const now = clock()
      return applyBulk(db, checkOrders(items), items.length, {
        storeId: store.id,
        keyOf: (item) => item.platformOrderId,
        load: (keys, trx) => repo.findByKeys(store.id, keys, trx, true),
        columns: ORDER_FIELDS,
        toRows: (list, existing, trx) => toRows(store, list, existing, trx, now),
        write: (changed, existing, trx) => write(store, changed, existing, trx)
      })
    },

    async list (storeId: string, query: PageQuery & { reviewRequestState?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, { state: query.reviewRequestState }, page)
      return envelope(rows.map(presentOrder), total, page)
    },

    async get (storeId: string, key: string) {
      const row = await repo.find(storeId, key)
      if (!row) throw new errors.NotFound('Order')
      return presentOrder(row)
    }
  }
}
export type OrdersService = ReturnType<typeof ordersService>
