import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { type AdminContext, can, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })) })
const CustomerParams = Type.Object({ customerId: Type.String({ maxLength: 64 }) })
const Points = Type.Integer({ minimum: 0, maximum: 1_000_000_000 })
const SettingsForm = Type.Object({ pointsPerUnit: Points, birthdayPoints: Points, referrerPoints: Points, refereePoints: Points })

function store (ctx: AdminContext) {
  if (!ctx.store) throw new errors.NotFound('Store environment')
  if (ctx.store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  return ctx.store
}

/** Loyalty of the current store: its settings (tiers stay as set through the API) and each account's ledger. */
export const loyaltyPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof PageQuery> }>('/loyalty', { schema: { querystring: PageQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'loyalty', 'read')
    const current = store(ctx)
    const [settings, accounts] = await Promise.all([
      services.loyalty.getSettings(current.id),
      services.loyalty.listAccounts(current.id, { page: request.query.page ?? 1, limit: 50 })
    ])
    return render(request, reply, 'loyalty/admin/views/loyalty', {
      title: 'Loyalty',
      store: current,
      settings,
      accounts,
      canWrite: can(ctx, 'loyalty', 'write')
    })
  })

  app.post<{ Body: Static<typeof SettingsForm> }>('/loyalty/settings', { schema: { body: SettingsForm } }, async (request, reply) => {
    const ctx = requireAccess(request, 'loyalty', 'write')
    const current = store(ctx)
    const { tiers } = await services.loyalty.getSettings(current.id)
    const body = request.body
    await services.loyalty.putSettings(current, {
      pointsPerUnit: body.pointsPerUnit,
      birthdayReward: { points: body.birthdayPoints },
      referralReward: { referrerPoints: body.referrerPoints, refereePoints: body.refereePoints },
      tiers
    })
    setFlash(reply, { notice: 'Loyalty settings saved.' })
    return redirect(reply, '/admin/loyalty')
  })

  app.get<{ Params: Static<typeof CustomerParams>, Querystring: Static<typeof PageQuery> }>('/loyalty/accounts/:customerId', {
    schema: { params: CustomerParams, querystring: PageQuery }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'loyalty', 'read')
    const account = await services.loyalty.getAccount(store(ctx).id, request.params.customerId, {
      page: request.query.page ?? 1,
      limit: 50
    })
    return render(request, reply, 'loyalty/admin/views/loyalty-account', { title: 'Loyalty account', account })
  })
}
