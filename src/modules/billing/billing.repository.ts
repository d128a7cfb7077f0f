import type { Knex } from 'knex'
import { iso } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { countAndPage } from '../../lib/pagination.js'
import type { Plan, SubscriptionStatus } from '../../types.js'

interface InvoiceRow {
  id: string
  org_id: string
  store_env_id: string
  provider: string
  plan: Plan
  previous_plan: Plan
  amount: number
  currency: string
  status: string
  period_start: number
  period_end: number
  created_at: number
}

export interface NewInvoice {
  orgId: string
  storeEnvId: string
  provider: string
  plan: Plan
  previousPlan: Plan
  /** Integer minor units (cents). */
  amount: number
  currency: string
  status: 'paid' | 'open'
  periodStart: number
  periodEnd: number
}

function present (row: InvoiceRow) {
  return {
    id: row.id,
    plan: row.plan,
    previousPlan: row.previous_plan,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    provider: row.provider,
    periodStart: iso(Number(row.period_start))!,
    periodEnd: iso(Number(row.period_end))!,
    createdAt: iso(Number(row.created_at))!
  }
}
export type Invoice = ReturnType<typeof present>

/** Invoices (`billing_invoices`) and the subscription columns of `store_envs`. */
export function billingRepository (db: Knex) {
  return {
    async addInvoice (invoice: NewInvoice, now: number, trx: Knex): Promise<Invoice> {
      const row: InvoiceRow = {
        id: newId('inv'),
        org_id: invoice.orgId,
        store_env_id: invoice.storeEnvId,
        provider: invoice.provider,
        plan: invoice.plan,
        previous_plan: invoice.previousPlan,
        amount: invoice.amount,
        currency: invoice.currency,
        status: invoice.status,
        period_start: invoice.periodStart,
        period_end: invoice.periodEnd,
        created_at: now
      }
      await trx('billing_invoices').insert(row)
      return present(row)
    },

    async listInvoices (storeId: string, filter: { since?: number }, page: { offset: number, limit: number }) {
      const base = db<InvoiceRow>('billing_invoices').where({ store_env_id: storeId })
      if (filter.since !== undefined) base.where('created_at', '>=', filter.since)
      const { total, rows } = await countAndPage<InvoiceRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
      return { total, invoices: rows.map(present) }
    },

    /** The store's row, locked until the transaction ends, so two plan changes of one store run one after the other. */
    async lockStore (storeId: string, trx: Knex.Transaction) {
      const query = trx('store_envs').where({ id: storeId }).first('plan', 'subscription_status', 'current_period_end')
      const row = await (trx.client.config.client === 'mysql2' ? query.forUpdate() : query)
      return row as { plan: Plan, subscription_status: SubscriptionStatus, current_period_end: number | null } | undefined
    },

    async setSubscription (storeId: string, sub: { plan: Plan, status: SubscriptionStatus, currentPeriodEnd: number | null }, trx: Knex) {
      await trx('store_envs').where({ id: storeId }).update({
        plan: sub.plan,
        subscription_status: sub.status,
        current_period_end: sub.currentPeriodEnd
      })
    }
  }
}
export type BillingRepository = ReturnType<typeof billingRepository>
