import type { Knex } from 'knex'
import type { Plan, StoreEnv, SubscriptionStatus } from '../../types.js'
import type { BillingRepository, Invoice } from './billing.repository.js'

/**
 * List prices in integer minor units (US cents) per month (docs/contract/api-conventions.md#money: money never as a
 * float).
 */
export const PLAN_PRICES: Record<Plan, number> = { free: 0, growth: 4_900, pro: 14_900 }
export const CURRENCY = 'USD'
const PERIOD_MS = 30 * 86_400_000

export interface ProviderSubscription { plan: Plan, status: SubscriptionStatus, currentPeriodEnd: number | null }

/**
 * What a billing provider does for the service (docs/contract/plans-and-limits.md#billing). The service owns the rules
 * (who may change, lapsed stores refused, the event, the audit entry) and stores what the provider answers in the
 * same transaction; the provider owns money: prices, periods, invoices and payment state.
 *
 * A Stripe adapter implements it like this:
 * - `changePlan`: `stripe.subscriptions.update(subscriptionId, { items: [{ id, price: priceIdOf(plan) }],
 *   proration_behavior: 'always_invoice' })` with an idempotency key derived from the store and the change, then
 *   answers the plan, the status mapped from Stripe's (`trialing`, `active`, `past_due` as they are; `unpaid`,
 *   `canceled`, `incomplete_expired` as `lapsed`), `current_period_end` in ms, and the latest invoice mirrored
 *   through `record` (amounts are already integer cents there). It is called inside the transaction, so it must
 *   not hold it long: network timeouts of a few seconds, and a failure throws, which rolls the change back.
 * - Stripe's own webhooks (`customer.subscription.updated`, `invoice.paid`, `invoice.payment_failed`) reach the
 *   store through a receiver that calls the billing service's `apply` with what changed, so a lapse or a
 *   recovery decided at Stripe shows up here with the same event and the same freshness bump.
 */
export interface BillingProvider {
  readonly name: string
  /**
   * Moves the store to `plan`. `record` stores an invoice row in the caller's transaction; the answer is the
   * subscription as the provider now holds it and the invoices it raised for the change (possibly none).
   */
  changePlan: (
    input: { store: StoreEnv, plan: Plan, now: number },
    record: InvoiceRecorder,
    trx: Knex.Transaction
  ) => Promise<{ subscription: ProviderSubscription, invoices: Invoice[] }>
}

export type InvoiceRecorder = (
  invoice: {
    plan: Plan
    previousPlan: Plan
    amount: number
    currency: string
    status: 'paid' | 'open'
    periodStart: number
    periodEnd: number
  }
) => Promise<Invoice>

/**
 * The embedded default: no payment is taken; each change starts a fresh 30-day period on the new plan, records an
 * invoice for it at the list price (marked paid, 0 for free), and makes the subscription active (a trial or a
 * past-due period ends with the change).
 */
export function embeddedProvider (): BillingProvider {
  return {
    name: 'embedded',
    async changePlan ({ store, plan, now }, record) {
      const periodEnd = now + PERIOD_MS
      const invoice = await record({
        plan,
        previousPlan: store.plan,
        amount: PLAN_PRICES[plan],
        currency: CURRENCY,
        status: 'paid',
        periodStart: now,
        periodEnd
      })
      return { subscription: { plan, status: 'active', currentPeriodEnd: periodEnd }, invoices: [invoice] }
    }
  }
}

export type { BillingRepository }
