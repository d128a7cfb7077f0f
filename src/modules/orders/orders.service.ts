import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { applyBulk, itemChecker } from '../../lib/bulk.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { isSyncQuery, syncEnvelope, type SyncQuery } from '../../lib/sync.js'
import { isOlder, type ProductsRepository } from '../products/index.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { ORDER_FIELDS, type OrderRow, type OrdersRepository } from './orders.repository.js'
import { OrderItem } from './orders.schemas.js'
import { planReviewRequest, sameRequest, type LineItem, type ReviewRequest } from './review-request.js'
import { trackOrders } from '../analytics/index.js'

const MAX_BATCH = 250

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /**
     * Orders were written, inside the upsert's transaction, with the rows that changed: reviews re-check
     * `verified`, loyalty awards points and completes referrals, affiliates record referred orders.
     */
    'orders.written': { payload: { store: StoreEnv, rows: OrderRow[] } }
  }
}

/**
 * The customer id each order names (by platform id, else by address), per index; null where none matches. It may
 * make a customer (a referred address's first order, modules/loyalty), in the upsert's transaction.
 */
export type CustomerResolver = (
  store: StoreEnv,
  refs: Array<{ platformCustomerId?: string | null, email?: string | null, name?: string | null }>,
  trx: Knex.Transaction
) => Promise<Array<string | null>>

interface Deps {
  db: Knex
  repo: OrdersRepository
  products: ProductsRepository
  events: EventLog
  clock: Clock
  reviewRequestDelayMs: number
  bus: DomainBus
  resolveCustomers?: CustomerResolver
  /** The store's active email sequence (modules/email-sequences): its first step replaces the single delay. */
  activeSequence?: (storeId: string, trx: Knex) => Promise<{ id: string, steps: Array<{ delayHours: number }> } | null>
}

export function requestOf (
  row: Pick<
    OrderRow,
    'review_request_state' | 'review_request_reason' | 'review_request_scheduled_for' | 'review_request_step' | 'review_request_sequence_id'
  >
): ReviewRequest {
  return {
    state: row.review_request_state ?? null,
    reason: row.review_request_reason ?? null,
    scheduledFor: row.review_request_scheduled_for == null ? null : Number(row.review_request_scheduled_for),
    step: row.review_request_step == null ? null : Number(row.review_request_step),
    sequenceId: row.review_request_sequence_id ?? null
  }
}

export function presentOrder (row: OrderRow) {
  const request = requestOf(row)
  return {
    platformOrderId: row.platform_order_id,
    customerEmail: row.customer_email,
    customerName: row.customer_name,
    platformCustomerId: row.platform_customer_id ?? null,
    customerId: row.customer_id ?? null,
    total: row.total == null ? null : Number(row.total),
    currency: row.currency,
    placedAt: iso(row.placed_at),
    fulfilledAt: iso(row.fulfilled_at),
    lineItems: JSON.parse(row.line_items) as LineItem[],
    affiliateCode: row.affiliate_code ?? null,
    reviewRequest: {
      state: request.state,
      reason: request.reason,
      scheduledFor: iso(request.scheduledFor),
      ...(request.sequenceId ? { sequenceId: request.sequenceId, step: (request.step ?? 0) + 1 } : {})
    },
    platformUpdatedAt: iso(row.platform_updated_at),
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

export function ordersService ({ db, repo, products, events, clock, reviewRequestDelayMs, bus, resolveCustomers, activeSequence }: Deps) {
  async function toRows (
    store: StoreEnv,
    items: Array<typeof OrderItem.static>,
    existing: Map<string, OrderRow>,
    trx: Knex.Transaction,
    now: number
  ) {
    const productKeys = [...new Set(items.flatMap((item) => (item.lineItems ?? []).map((line) => line.platformProductId)))]
    const productRows = await products.findByKeys(store.id, productKeys, trx)
    const refs = items.map((item) => ({ platformCustomerId: item.platformCustomerId, email: item.customerEmail, name: item.customerName }))
    const customerIds = resolveCustomers ? await resolveCustomers(store, refs, trx) : []
    const sequence = activeSequence ? await activeSequence(store.id, trx) : null
    const delayMs = sequence ? sequence.steps[0].delayHours * 3_600_000 : reviewRequestDelayMs
    return items.map((item, index): OrderRow => {
      const before = existing.get(item.platformOrderId)
      const platformUpdatedAt = toMs(item.platformUpdatedAt)
      // Out-of-order delivery: an item older than the stored order is left alone, like an identical re-send.
      if (before && isOlder(platformUpdatedAt, before.platform_updated_at)) return before
      const current = before ? requestOf(before) : { state: null, reason: null, scheduledFor: null }
      const lineItems = item.lineItems ?? []
      const request = planReviewRequest(
        { customerEmail: item.customerEmail ?? null, fulfilledAt: toMs(item.fulfilledAt), lineItems, current },
        productRows,
        delayMs,
        sequence?.id ?? null
      )
      return {
        org_id: store.orgId,
        store_env_id: store.id,
        platform_order_id: item.platformOrderId,
        customer_email: item.customerEmail ?? null,
        customer_name: item.customerName ?? null,
        platform_customer_id: item.platformCustomerId ?? null,
        customer_id: customerIds[index] ?? null,
        total: item.total == null ? null : toCents(item.total),
        currency: item.currency ?? null,
        placed_at: toMs(item.placedAt),
        fulfilled_at: toMs(item.fulfilledAt),
        line_items: JSON.stringify(lineItems.map((line) => ({ platformProductId: line.platformProductId, quantity: line.quantity }))),
        review_request_state: request.state,
        review_request_reason: request.reason,
        review_request_scheduled_for: request.scheduledFor,
        review_request_sequence_id: request.sequenceId ?? null,
        review_request_step: request.step ?? null,
        review_request_updated_at: sameRequest(request, current) ? before?.review_request_updated_at ?? null : now,
        affiliate_code: item.affiliateCode ?? null,
        platform_updated_at: platformUpdatedAt,
        created_at: before?.created_at ?? now,
        updated_at: now
      }
    })
  }

  async function write (store: StoreEnv, changed: OrderRow[], existing: Map<string, OrderRow>, trx: Knex.Transaction) {
    await trackOrders(trx, store.id, changed.map((row) => row.platform_order_id), () => repo.upsert(changed, trx))
    const appended: Array<{ type: string, data: Record<string, unknown> }> = []
    for (const row of changed) {
      const data = presentOrder(row)
      appended.push({ type: 'order.upserted', data })
      const before = existing.get(row.platform_order_id)
      const previous = before ? requestOf(before) : { state: null, reason: null, scheduledFor: null }
      if (!sameRequest(previous, requestOf(row))) appended.push({ type: 'order.review_request.updated', data })
    }
    await events.appendMany(trx, store.id, store.orgId, appended)
    await bus.emit('orders.written', trx, { store, rows: changed })
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

    async list (storeId: string, query: PageQuery & SyncQuery & { reviewRequestState?: string }) {
      const page = toPage(query)
      const filter = { state: query.reviewRequestState }
      if (isSyncQuery(query)) {
        const found = await repo.sync(storeId, filter, query, page.limit, (message) => new errors.InvalidRequest(message))
        return syncEnvelope(found.rows.map(presentOrder), found, page.limit)
      }
      const { total, rows } = await repo.list(storeId, filter, page)
      return envelope(rows.map(presentOrder), total, page)
    },

    /** An order deleted on the platform (platform sync); appends `order.deleted`. False when there was none. */
    async remove (store: StoreEnv, key: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const row = await repo.remove(store.id, key, trx)
        if (row) {
          await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'order.deleted', data: { platformOrderId: key } })
        }
        return row !== undefined
      })
    },

    async get (storeId: string, key: string) {
      const row = await repo.find(storeId, key)
      if (!row) throw new errors.NotFound('Order')
      return presentOrder(row)
    }
  }
}
export type OrdersService = ReturnType<typeof ordersService>
