import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { PLANS } from '../../types.js'
import { EVENT_TYPES } from '../events/event-types.js'
import { type AdminContext, can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { AdminServices } from './services.js'

const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })), status: Type.Optional(Type.Union([Type.Literal('retired')])) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const WebhookBody = Type.Object({
  url: Type.String({ maxLength: 2000 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  events: Type.Optional(Type.Union([Type.String({ maxLength: 80 }), Type.Array(Type.String({ maxLength: 80 }), { maxItems: 50 })]))
})

/** The same store gates as the API's tenancy step: a lapsed subscription, then the plan (decisions.md section 2). */
function currentStore (ctx: AdminContext, plan?: 'growth') {
  const store = ctx.store
  if (!store) throw new errors.NotFound('Store environment')
  if (store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  if (plan && PLANS.indexOf(store.plan) < PLANS.indexOf(plan)) throw new errors.PlanRequired(plan)
  return store
}

/** Outbound webhooks of the current store: list, register (secret shown once), retire, and the delivery log. */
export const webhooksRoutes: FastifyPluginAsync<{ services: AdminServices }> = async (app, { services }) => {
  async function page (request: Parameters<typeof render>[0], reply: Parameters<typeof render>[1], query: Static<typeof ListQuery>, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'outbound-webhooks', 'read')
    const store = currentStore(ctx)
    const webhooks = await services.webhooks.list(store.id, { page: query.page ?? 1, limit: 50, status: query.status })
    const planOk = PLANS.indexOf(store.plan) >= PLANS.indexOf('growth')
    return render(request, reply, 'webhooks', {
      title: 'Webhooks', store, webhooks, retired: query.status === 'retired', planOk, canWrite: can(ctx, 'outbound-webhooks', 'write'), eventTypes: EVENT_TYPES, values: { events: ['*'] }, ...extra
    }, status)
  }

  app.get<{ Querystring: Static<typeof ListQuery> }>('/webhooks', { schema: { querystring: ListQuery } }, async (request, reply) => page(request, reply, request.query))

  app.post<{ Body: Static<typeof WebhookBody> }>('/webhooks', { schema: { body: WebhookBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    const store = currentStore(ctx, 'growth')
    const events = ([] as string[]).concat(request.body.events ?? [])
    try {
      if (events.length === 0) throw new errors.InvalidRequest('Choose the events to send, or all events')
      const description = request.body.description?.trim() || undefined
      const webhook = await services.webhooks.create(ctx.actor, store.id, { url: request.body.url.trim(), events, description })
      setFlash(reply, { once: { title: 'Webhook registered', label: `Signing secret for ${webhook.url}:`, value: webhook.secret } })
      return redirect(reply, '/admin/webhooks')
    } catch (err) {
      const status = formErrorStatus(err)
      return page(request, reply, {}, { values: { ...request.body, events }, error: (err as Error).message }, status)
    }
  })

  app.get<{ Params: Static<typeof IdParams> }>('/webhooks/:id/retire', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    const webhook = await services.webhooks.get(currentStore(ctx, 'growth').id, request.params.id)
    return render(request, reply, 'confirm', {
      title: 'Retire webhook',
      question: `Retire the webhook to ${webhook.url}?`,
      consequence: 'No further events are sent to it. Its delivery log stays visible. To rotate a secret, register the new webhook first.',
      action: `/admin/webhooks/${webhook.id}/retire`,
      button: 'Retire webhook',
      back: '/admin/webhooks'
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/webhooks/:id/retire', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    await services.webhooks.retire(ctx.actor, currentStore(ctx, 'growth').id, request.params.id)
    setFlash(reply, { notice: 'The webhook is retired.' })
    return redirect(reply, '/admin/webhooks')
  })

  app.get<{ Params: Static<typeof IdParams>, Querystring: Static<typeof ListQuery> }>('/webhooks/:id/deliveries', { schema: { params: IdParams, querystring: ListQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'read')
    const store = currentStore(ctx)
    const webhook = await services.webhooks.get(store.id, request.params.id)
    const attempts = await services.webhooks.deliveries(store.id, webhook.id, { page: request.query.page ?? 1, limit: 50 })
    return render(request, reply, 'webhook-deliveries', { title: 'Webhook deliveries', webhook, attempts })
  })
}
