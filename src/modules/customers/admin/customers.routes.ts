import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { type AdminContext, can, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
  email: Type.Optional(Type.String({ maxLength: 320 }))
})
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

/** The API's store gates for these pages: a store must be chosen and its subscription live. */
function liveStore (ctx: AdminContext) {
  if (!ctx.store) throw new errors.NotFound('Store environment')
  if (ctx.store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  return ctx.store
}

/** Customers of the current store, found by address, and their erasure behind a confirmation page. */
export const customersPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof ListQuery> }>('/customers', { schema: { querystring: ListQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'customers', 'read')
    const store = liveStore(ctx)
    const email = request.query.email?.trim() || undefined
    const customers = await services.customers.list(store.id, { page: request.query.page ?? 1, limit: 50, email })
    return render(request, reply, 'customers/admin/views/customers', {
      title: 'Customers',
      store,
      customers,
      email: email ?? '',
      canWrite: can(ctx, 'customers', 'write')
    })
  })

  app.get<{ Params: Static<typeof IdParams> }>('/customers/:id/erase', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'customers', 'write')
    const customer = await services.customers.get(liveStore(ctx).id, request.params.id)
    const who = customer.email ?? customer.platformCustomerId
    return render(request, reply, 'confirm', {
      title: 'Erase customer',
      question: `Erase ${who} and all their personal data?`,
      consequence:
        'Their email, name, phone and birthday are removed from the customer, their orders, their reviews (which stay, shown as Anonymous) and the event log. This cannot be undone.',
      action: `/admin/customers/${customer.id}/erase`,
      button: 'Erase customer',
      back: '/admin/customers'
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/customers/:id/erase', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'customers', 'write')
    await services.customers.erase(liveStore(ctx), request.params.id, ctx.actor, request.ip)
    setFlash(reply, { notice: 'The customer is erased.' })
    return redirect(reply, '/admin/customers')
  })
}
