import type { Knex } from 'knex'
import { iso, type Clock } from '../../lib/clock.js'
import { type EmailSender, productListValue } from '../email/index.js'
import type { EmailSequencesRepository, Step } from '../email-sequences/index.js'
import { lockEventLog, type EventLog } from '../events/index.js'
import type { ProductRow, ProductsRepository } from '../products/index.js'
import type { OrderRow, OrdersRepository } from './orders.repository.js'
import { presentOrder } from './orders.service.js'
import { clip } from '../../lib/text.js'
import { trackOrders } from '../analytics/index.js'
import { allExcludedReason, REASON_MAX, type LineItem, type ReviewRequestState } from './review-request.js'

interface Deps {
  db: Knex
  repo: OrdersRepository
  products: ProductsRepository
  events: EventLog
  sender: EmailSender
  sequences: Pick<EmailSequencesRepository, 'byId'>
  /** Whether the order has a review (a step with `stopWhen: reviewed` is then not sent). */
  reviewed: (storeId: string, platformOrderId: string, trx: Knex) => Promise<boolean>
  clock: Clock
}

interface Next { state: ReviewRequestState, reason: string, step: number | null, scheduledFor: number | null }

/** The request of a store without a sequence: one mail, the review_request template. */
const SINGLE: Step = { delayHours: 0, templateKey: 'review_request' }

const BATCH = 50

/** The values of the review-request templates (modules/email/templates.ts). */
function valuesOf (order: OrderRow, products: ProductRow[]) {
  return {
    customerName: order.customer_name ?? 'there',
    orderId: order.platform_order_id,
    productList: productListValue(products.map((p) => ({ title: p.title ?? p.platform_product_id, url: p.url })))
  }
}

function maskedTo (email: string): string {
  return `…${email.slice(-4)}`
}

/**
 * Moves due review requests to sent, failed or skipped (see review-request.ts). Each order is claimed in its own
 * transaction: on MySQL `FOR UPDATE SKIP LOCKED` lets several instances share the work without sending twice; SQLite
 * has a single writer. A crash after the SMTP hand-off but before commit can send one mail twice (at least once).
 */
export function reviewRequestScheduler ({ db, repo, products, events, sender, sequences, reviewed, clock }: Deps) {
  /** What the claimed order's step is: its sequence's step, or the single review request without one. */
  async function stepOf (order: OrderRow, trx: Knex.Transaction) {
    if (!order.review_request_sequence_id) return { index: null, step: SINGLE, total: 1 }
    const sequence = await sequences.byId(order.review_request_sequence_id, trx)
    const index = Number(order.review_request_step ?? 0)
    // A sequence deleted or shortened since: a first step still goes out as the plain request, a later one ends it.
    if (!sequence || index >= sequence.steps.length) {
      return { index, step: index === 0 ? SINGLE : null, total: sequence?.steps.length ?? index }
    }
    return { index, step: sequence.steps[index], total: sequence.steps.length, next: sequence.steps[index + 1] }
  }

  async function decide (order: OrderRow, trx: Knex.Transaction, now: number): Promise<Next> {
    const { index, step, total, next } = await stepOf(order, trx)
    const label = index === null ? '' : `Step ${index + 1} of ${total}: `
    if (!step) return { state: 'sent', reason: `The email sequence changed; it ended after step ${index}`, step: index, scheduledFor: null }
    if (step.stopWhen === 'reviewed' && await reviewed(order.store_env_id, order.platform_order_id, trx)) {
      return { state: 'sent', reason: `${label}not sent: the order has a review`, step: index, scheduledFor: null }
    }
    const lineItems = JSON.parse(order.line_items) as LineItem[]
    const productRows = await products.findByKeys(order.store_env_id, lineItems.map((l) => l.platformProductId), trx)
    const excluded = allExcludedReason(lineItems, productRows)
    if (excluded) return { state: 'skipped', reason: clip(label + excluded, REASON_MAX), step: index, scheduledFor: null }
    const store = await trx('store_envs').where({ id: order.store_env_id }).first('name')
    const eligible = [...productRows.values()].filter((p) => !p.excluded_from_review_requests)
    const outcome = await sender.send(trx, {
      orgId: order.org_id,
      storeEnvId: order.store_env_id,
      storeName: store?.name ?? 'our store',
      to: order.customer_email!,
      templateKey: step.templateKey,
      values: valuesOf(order, eligible)
    })
    // A suppressed address is not a transport failure: the request is skipped, saying why (the log has the rest).
    if (outcome.status === 'failed' || outcome.status === 'suppressed') {
      return {
        state: outcome.status === 'failed' ? 'failed' : 'skipped',
        reason: clip(label + outcome.reason, REASON_MAX),
        step: index,
        scheduledFor: null
      }
    }
    const sent = `${label}sent to ${maskedTo(order.customer_email!)} by ${outcome.status === 'sent' ? 'SMTP' : 'the local outbox'}`
    const reason = label ? sent : sent[0].toUpperCase() + sent.slice(1)
    if (!next || index === null) return { state: 'sent', reason, step: index, scheduledFor: null }
    const at = now + next.delayHours * 3_600_000
    return { state: 'scheduled', reason: `${reason}; step ${index + 2} goes out at ${iso(at)}`, step: index + 1, scheduledFor: at }
  }

  async function processOne (id: number, storeId: string, step: number | null): Promise<ReviewRequestState | null> {
    return db.transaction(async (trx) => {
      // The store's event lock first; the order is then claimed with SKIP LOCKED, so a bulk upsert holding the order
      // row (and waiting for the event lock to append its events) is skipped, never waited on: no lock-order deadlock.
      await lockEventLog(trx, storeId)
      const now = clock()
      const order = await repo.claim(id, trx, step, now)
      if (!order) return null
      const next = await decide(order, trx, now)
      await trackOrders(trx, order.store_env_id, [order.platform_order_id], () => repo.advanceReviewRequest(id, next, now, trx))
      const updated: OrderRow = {
        ...order,
        review_request_state: next.state,
        review_request_reason: next.reason,
        review_request_step: next.step,
        review_request_scheduled_for: next.scheduledFor,
        review_request_updated_at: now,
        updated_at: now
      }
      await events.append(trx, {
        orgId: order.org_id,
        storeEnvId: order.store_env_id,
        type: 'order.review_request.updated',
        data: presentOrder(updated)
      })
      return next.state
    })
  }

  return {
    /** Processes every request due now (in batches), in every store or in `storeId` only; returns how many changed. */
    async runDue (storeId?: string): Promise<number> {
      let done = 0
      for (;;) {
        const ids = await repo.due(clock(), BATCH, storeId)
        let progressed = 0
        for (const row of ids) {
          if (
            await processOne(Number(row.id), row.store_env_id, row.review_request_step == null ? null : Number(row.review_request_step))
          ) progressed++
        }
        done += progressed
        if (ids.length < BATCH || progressed === 0) return done
      }
    }
  }
}
export type ReviewRequestScheduler = ReturnType<typeof reviewRequestScheduler>
