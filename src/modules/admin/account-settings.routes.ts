import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { PLANS, type Plan } from '../../types.js'
import { PLAN_PRICES, CURRENCY } from '../billing/index.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const PlanBody = Type.Object({ plan: Type.String({ maxLength: 16 }) })
const NameBody = Type.Object({ name: Type.String({ maxLength: 200 }) })
const TransferBody = Type.Object({ personId: Type.String({ maxLength: 40 }) })
const SupportBody = Type.Object({ subject: Type.String({ maxLength: 200 }), body: Type.String({ maxLength: 10_000 }) })

/** Integer cents as `49.00 USD`, without a float in between. */
function money (amount: number, currency: string): string {
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')} ${currency}`
}

/**
 * Plan and invoices, organization settings and support: the admin faces of /v1/billing, /v1/orgs and /v1/support,
 * calling the same services with the same role rules (owners change the plan and the organization; a lapsed store
 * still sees its billing).
 */
export const accountSettingsRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  type Req = Parameters<typeof render>[0]
  type Reply = Parameters<typeof render>[1]

  app.get('/billing', async (request, reply) => {
    const ctx = requireAccess(request, 'billing', 'read')
    const store = currentStore(ctx, { lapsed: true })
    const subscription = services.billing.subscription(store)
    const invoices = await services.billing.invoices(store, { page: 1, limit: 50 })
    const plans = PLANS.map((plan) => ({ plan, price: money(PLAN_PRICES[plan], CURRENCY) }))
    return render(request, reply, 'billing', {
      title: 'Plan and invoices',
      store,
      subscription,
      invoices: invoices.data,
      plans,
      money,
      canChange: can(ctx, 'billing', 'write') && store.subscriptionStatus !== 'lapsed'
    })
  })

  app.post<{ Body: Static<typeof PlanBody> }>('/billing/plan', { schema: { body: PlanBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'billing', 'write')
    const store = currentStore(ctx, { lapsed: true })
    if (!(PLANS as readonly string[]).includes(request.body.plan)) throw new errors.InvalidRequest('Choose free, growth or pro')
    if (store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
    const sub = await services.billing.change(ctx.actor, store, request.body.plan as Plan, request.ip)
    setFlash(reply, { notice: `${store.name} is on the ${sub.plan} plan.` })
    return redirect(reply, '/admin/billing')
  })

  async function organizationPage (request: Req, reply: Reply, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'orgs', 'read')
    const org = await services.orgs.current(ctx.org.id)
    const isOwner = can(ctx, 'orgs', 'write')
    const admins = isOwner
      ? (await services.account.members(ctx.org.id, { page: 1, limit: 100 })).data.filter((m) => m.role === 'admin')
      : []
    return render(request, reply, 'organization', { title: 'Organization', org, isOwner, admins, name: org.name, ...extra }, status)
  }

  app.get('/organization', async (request, reply) => organizationPage(request, reply))

  app.post<{ Body: Static<typeof NameBody> }>('/organization/name', { schema: { body: NameBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'orgs', 'write')
    try {
      const org = await services.orgs.rename(ctx.actor, request.body.name, request.ip)
      setFlash(reply, { notice: `The organization is now called ${org.name}.` })
      return redirect(reply, '/admin/organization')
    } catch (err) {
      return organizationPage(request, reply, { name: request.body.name, error: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.post<{ Body: Static<typeof TransferBody> }>('/organization/transfer', { schema: { body: TransferBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'orgs', 'write')
    try {
      const org = await services.orgs.transferOwnership(ctx.actor, request.body.personId, request.ip)
      setFlash(reply, { notice: `Ownership is transferred to ${org.owners.map((o) => o.email).join(', ')}. You are an admin now.` })
      return redirect(reply, '/admin/organization')
    } catch (err) {
      return organizationPage(request, reply, { transferError: (err as Error).message }, formErrorStatus(err))
    }
  })

  async function supportPage (request: Req, reply: Reply, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'support', 'read')
    const store = currentStore(ctx, { lapsed: true })
    const requests = await services.support.list(store, { page: 1, limit: 50 })
    return render(request, reply, 'support', {
      title: 'Support',
      store,
      requests: requests.data,
      canAsk: can(ctx, 'support', 'write'),
      values: { subject: '', body: '' },
      ...extra
    }, status)
  }

  app.get('/support', async (request, reply) => supportPage(request, reply))

  app.post<{ Body: Static<typeof SupportBody> }>('/support', { schema: { body: SupportBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'support', 'write')
    const store = currentStore(ctx, { lapsed: true })
    try {
      if (store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
      if (!request.body.subject.trim() || !request.body.body.trim()) {
        throw new errors.InvalidRequest('Give a subject and describe the problem')
      }
      await services.support.create(ctx.actor, store, request.body)
      setFlash(reply, { notice: 'Your request is sent. We answer by email.' })
      return redirect(reply, '/admin/support')
    } catch (err) {
      return supportPage(request, reply, { values: request.body, error: (err as Error).message }, formErrorStatus(err))
    }
  })
}
