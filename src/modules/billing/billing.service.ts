import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { actorOf, PLANS, SUBSCRIPTION_STATUSES, type Credential, type Plan, type StoreEnv, type SubscriptionStatus } from '../../types.js'
import type { AuditRepository } from '../audit/index.js'
import type { StoresRepository } from '../account/index.js'
import type { eventLog } from '../events/index.js'
import { CURRENCY, PLAN_PRICES, type BillingProvider, type ProviderSubscription } from './billing.provider.js'
import type { BillingRepository } from './billing.repository.js'

interface Deps {
  db: Knex
  repo: BillingRepository
  stores: StoresRepository
  provider: BillingProvider
  events: ReturnType<typeof eventLog>
  audit: AuditRepository
  clock: Clock
  fresh: Freshness
}

function view (store: Pick<StoreEnv, 'id'>, sub: ProviderSubscription, provider: string) {
  return {
    storeEnvId: store.id,
    plan: sub.plan,
    status: sub.status,
    currentPeriodEnd: iso(sub.currentPeriodEnd),
    price: { amount: PLAN_PRICES[sub.plan], currency: CURRENCY, interval: 'month' as const },
    provider
  }
}

/**
 * The store's subscription (docs/contract/plans-and-limits.md#plans-and-subscription and
 * docs/contract/plans-and-limits.md#billing): read by anyone who may read billing (also while lapsed), changed by the
 * owner through the provider. Every change appends `subscription.updated` and bumps the store's marker, so the
 * pipeline's plan and lapse checks see it on the next request of every instance.
 */
export function billingService ({ db, repo, stores, provider, events, audit, clock, fresh }: Deps) {
  async function commit (
    store: StoreEnv,
    sub: ProviderSubscription,
    trx: Knex.Transaction,
    audited: { actor: string, ip: string | null, action: string }
  ) {
    await repo.setSubscription(store.id, sub, trx)
    const data = { ...view(store, sub, provider.name), previousPlan: store.plan, previousStatus: store.subscriptionStatus }
    await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'subscription.updated', data })
    await audit.record({
      orgId: store.orgId,
      action: audited.action,
      actor: audited.actor,
      subject: `store:${store.id}`,
      ip: audited.ip,
      details: { from: { plan: store.plan, status: store.subscriptionStatus }, to: { plan: sub.plan, status: sub.status } }
    }, trx)
  }

  /** The store as committed, read under its row lock: a change decided on a stale plan would invoice the wrong move. */
  async function lockedStore (store: StoreEnv, trx: Knex.Transaction): Promise<StoreEnv> {
    const row = await repo.lockStore(store.id, trx)
    if (!row) throw new errors.StoreEnvNotFound()
    return {
      ...store,
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
      currentPeriodEnd: row.current_period_end == null ? null : Number(row.current_period_end)
    }
  }

  return {
    providerName: provider.name,

    subscription: (store: StoreEnv) =>
      view(store, { plan: store.plan, status: store.subscriptionStatus, currentPeriodEnd: store.currentPeriodEnd }, provider.name),

    /** Changing to the plan the store already has changes nothing: no invoice, no event (a retried request is safe). */
    async change (actor: Credential, store: StoreEnv, plan: Plan, ip: string | null) {
      const now = clock()
      const result = await db.transaction(async (trx) => {
        const current = await lockedStore(store, trx)
        // The pipeline refused a lapsed store already; this catches a lapse committed since
        // (docs/contract/plans-and-limits.md#plans-and-subscription).
        if (current.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
        if (current.plan === plan) return { store: current, changed: false }
        const { subscription } = await provider.changePlan(
          { store: current, plan, now },
          (invoice) => repo.addInvoice({ ...invoice, orgId: store.orgId, storeEnvId: store.id, provider: provider.name }, now, trx),
          trx
        )
        await commit(current, subscription, trx, { actor: actorOf(actor), ip, action: 'billing.plan_changed' })
        return {
          store: {
            ...current,
            plan: subscription.plan,
            subscriptionStatus: subscription.status,
            currentPeriodEnd: subscription.currentPeriodEnd
          },
          changed: true
        }
      })
      if (result.changed) await fresh.bump([marker.store(store.id)])
      return this.subscription(result.store)
    },

    /**
     * A subscription change decided outside the API (the operator's `store set-plan`, or a provider's webhook):
     * stored with the same event, audit entry and freshness bump as an owner's change, without an invoice.
     */
    async apply (input: { store: string, plan: Plan, status?: SubscriptionStatus }, actor: string) {
      if (!(PLANS as readonly string[]).includes(input.plan)) throw new errors.InvalidRequest(`plan must be one of ${PLANS.join(', ')}`)
      if (input.status && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(input.status)) {
        throw new errors.InvalidRequest(`status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}`)
      }
      const found = await stores.find(input.store)
      if (!found) throw new errors.NotFound('Store environment')
      const sub = await db.transaction(async (trx) => {
        const current = await lockedStore(found, trx)
        const next = { plan: input.plan, status: input.status ?? current.subscriptionStatus, currentPeriodEnd: current.currentPeriodEnd }
        if (next.plan !== current.plan || next.status !== current.subscriptionStatus) {
          await commit(current, next, trx, { actor, ip: null, action: 'billing.subscription_set' })
        }
        return next
      })
      await fresh.bump([marker.store(found.id)])
      return { store: { id: found.id, plan: sub.plan, status: sub.status } }
    },

    async invoices (store: StoreEnv, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const since = query.updatedSince === undefined ? undefined : Date.parse(query.updatedSince)
      const { total, invoices } = await repo.listInvoices(store.id, { since }, page)
      return envelope(invoices, total, page)
    }
  }
}
export type BillingService = ReturnType<typeof billingService>
