import type { Knex } from 'knex'
import type { Clock } from '../../lib/clock.js'
import type { MailTransport } from '../../lib/mail.js'
import { lockEventLog, type EventLog } from '../events/events.repository.js'
import type { ProductRow, ProductsRepository } from '../products/products.repository.js'
import type { OrderRow, OrdersRepository } from './orders.repository.js'
import { presentOrder } from './orders.service.js'
import { clip } from '../../lib/text.js'
import { allExcludedReason, REASON_MAX, type LineItem, type ReviewRequestState } from './review-request.js'

interface Deps { db: Knex, repo: OrdersRepository, products: ProductsRepository, events: EventLog, mail: MailTransport, clock: Clock }

const BATCH = 50

function composeMail (order: OrderRow, storeName: string, products: ProductRow[]) {
  const greeting = order.customer_name ? `Hi ${order.customer_name},` : 'Hi,'
  const lines = products.map((p) => `- ${p.title ?? p.platform_product_id}${p.url ? `: ${p.url}` : ''}`)
  return {
    subject: `How was your order from ${storeName}?`,
    text: [greeting, '', `Thank you for your order ${order.platform_order_id}. We would love to hear what you think:`, '', ...lines, '', storeName].join('\n')
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
export function reviewRequestScheduler ({ db, repo, products, events, mail, clock }: Deps) {
  async function processOne (id: number, storeId: string): Promise<ReviewRequestState | null> {
    return db.transaction(async (trx) => {
      // The store's event lock first; the order is then claimed with SKIP LOCKED, so a bulk upsert holding the order
      // row (and waiting for the event lock to append its events) is skipped, never waited on: no lock-order deadlock.
      await lockEventLog(trx, storeId)
      const order = await repo.claim(id, trx)
      if (!order) return null
      const now = clock()
      const lineItems = JSON.parse(order.line_items) as LineItem[]
      const productRows = await products.findByKeys(order.store_env_id, lineItems.map((l) => l.platformProductId), trx)
      const store = await trx('store_envs').where({ id: order.store_env_id }).first('name')
      let state: ReviewRequestState
      let reason: string
      const excluded = allExcludedReason(lineItems, productRows)
      if (excluded) {
        state = 'skipped'
        reason = excluded
      } else {
        const eligible = [...productRows.values()].filter((p) => !p.excluded_from_review_requests)
        const { subject, text } = composeMail(order, store?.name ?? 'our store', eligible)
        try {
          await mail.send(trx, { orgId: order.org_id, storeEnvId: order.store_env_id, to: order.customer_email!, subject, text })
          state = 'sent'
          reason = `Sent to ${maskedTo(order.customer_email!)} by ${mail.kind === 'smtp' ? 'SMTP' : 'the local outbox'}`
        } catch (err) {
          state = 'failed'
          reason = clip(`Mail transport refused the message: ${(err as Error).message}`, REASON_MAX)
        }
      }
      await repo.setReviewRequest(id, state, reason, now, trx)
      const updated = { ...order, review_request_state: state, review_request_reason: reason, review_request_updated_at: now }
      await events.append(trx, { orgId: order.org_id, storeEnvId: order.store_env_id, type: 'order.review_request.updated', data: presentOrder(updated) })
      return state
    })
  }

  return {
    /** Processes every request due now (in batches), in every store or in `storeId` only; returns how many changed. */
    async runDue (storeId?: string): Promise<number> {
      let done = 0
      for (;;) {
        const ids = await repo.due(clock(), BATCH, storeId)
        let progressed = 0
        for (const { id, store_env_id: storeId } of ids) if (await processOne(Number(id), storeId)) progressed++
        done += progressed
        if (ids.length < BATCH || progressed === 0) return done
      }
    }
  }
}
export type ReviewRequestScheduler = ReturnType<typeof reviewRequestScheduler>
