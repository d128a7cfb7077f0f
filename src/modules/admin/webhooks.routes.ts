import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { planRefusal } from '../../features.js'
import { EVENT_TYPES } from '../events/index.js'
import { type AdminContext, currentStore, can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  status: Type.Optional(Type.Union([Type.Literal('retired')]))
})
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) })
/** datetime-local inputs (UTC, as the form says); a full ISO date with a zone is taken as it is. */
const ReplayBody = Type.Object({
  since: Type.String({ minLength: 1, maxLength: 40 }),
  until: Type.Optional(Type.String({ maxLength: 40 }))
})
const WebhookBody = Type.Object({
  url: Type.String({ maxLength: 2000 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  events: Type.Optional(Type.Union([Type.String({ maxLength: 80 }), Type.Array(Type.String({ maxLength: 80 }), { maxItems: 50 })]))
})

/** Outbound webhooks of the current store: list, register (secret shown once), retire, and the delivery log. */
export const webhooksRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  /** The store, once its entitlements (plan and operator overrides, src/features.ts) include outbound webhooks. */
  async function entitledStore (ctx: AdminContext) {
    const store = currentStore(ctx)
    const plan = planRefusal(store.plan, await services.features.overrides(store.id), { feature: 'outbound-webhooks' })
    if (plan) throw new errors.PlanRequired(plan)
    return store
  }

  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    query: Static<typeof ListQuery>,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'outbound-webhooks', 'read')
    const store = currentStore(ctx)
    const webhooks = await services.outboundWebhooks.list(store.id, { page: query.page ?? 1, limit: 50, status: query.status })
    const planOk = !planRefusal(store.plan, await services.features.overrides(store.id), { feature: 'outbound-webhooks' })
    return render(request, reply, 'webhooks', {
      title: 'Webhooks',
      store,
      webhooks,
      retired: query.status === 'retired',
      planOk,
      canWrite: can(ctx, 'outbound-webhooks', 'write'),
      eventTypes: EVENT_TYPES,
      values: { events: ['*'] },
      ...extra
    }, status)
  }

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/webhooks',
    { schema: { querystring: ListQuery } },
    async (request, reply) => page(request, reply, request.query)
  )

  app.post<{ Body: Static<typeof WebhookBody> }>('/webhooks', { schema: { body: WebhookBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    const store = (await entitledStore(ctx))
    const events = ([] as string[]).concat(request.body.events ?? [])
    try {
      if (events.length === 0) throw new errors.InvalidRequest('Choose the events to send, or all events')
      const description = request.body.description?.trim() || undefined
      const webhook = await services.outboundWebhooks.create(ctx.actor, store.id, { url: request.body.url.trim(), events, description })
      setFlash(reply, { once: { title: 'Webhook registered', label: `Signing secret for ${webhook.url}:`, value: webhook.secret } })
      return redirect(reply, '/admin/webhooks')
    } catch (err) {
      const status = formErrorStatus(err)
      return page(request, reply, {}, { values: { ...request.body, events }, error: (err as Error).message }, status)
    }
  })

  app.get<{ Params: Static<typeof IdParams> }>('/webhooks/:id/retire', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    // Retiring needs no plan, as through the API: a store that moved to the free plan can still stop its webhooks.
    const webhook = await services.outboundWebhooks.get(currentStore(ctx).id, request.params.id)
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
    await services.outboundWebhooks.retire(ctx.actor, currentStore(ctx).id, request.params.id)
    setFlash(reply, { notice: 'The webhook is retired.' })
    return redirect(reply, '/admin/webhooks')
  })

  app.get<{ Params: Static<typeof IdParams>, Querystring: Static<typeof ListQuery> }>('/webhooks/:id/deliveries', {
    schema: { params: IdParams, querystring: ListQuery }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'outbound-webhooks', 'read')
    const store = currentStore(ctx)
    const webhook = await services.outboundWebhooks.get(store.id, request.params.id)
    const attempts = await services.outboundWebhooks.deliveries(store.id, webhook.id, { page: request.query.page ?? 1, limit: 50 })
    return render(request, reply, 'webhook-deliveries', {
      title: 'Webhook deliveries',
      webhook,
      attempts,
      canWrite: can(ctx, 'outbound-webhooks', 'write')
    })
  })

  // Recovering a receiver (docs/contract/webhooks-and-delivery.md#webhook-operations): the API's own operations,
  // audited there, from the delivery log.
  const back = (id: string) => `/admin/webhooks/${encodeURIComponent(id)}/deliveries`
  async function operate (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    id: string,
    work: (ctx: AdminContext, storeId: string) => Promise<string>
  ) {
    const ctx = requireAccess(request, 'outbound-webhooks', 'write')
    try {
      setFlash(reply, { notice: await work(ctx, (await entitledStore(ctx)).id) })
    } catch (err) {
      formErrorStatus(err) // rethrows a server error
      setFlash(reply, { error: (err as Error).message })
    }
    return redirect(reply, back(id))
  }

  app.post<{ Params: Static<typeof IdParams> }>('/webhooks/:id/enable', { schema: { params: IdParams } }, async (request, reply) =>
    operate(request, reply, request.params.id, async (ctx, storeId) => {
      await services.webhookOperations.enable(ctx.actor, storeId, request.params.id, request.ip)
      return 'The webhook is enabled again.'
    }))

  app.post<{ Params: Static<typeof DeliveryParams> }>('/webhooks/:id/deliveries/:deliveryId/redeliver', {
    schema: { params: DeliveryParams }
  }, async (request, reply) =>
    operate(request, reply, request.params.id, async (ctx, storeId) => {
      const queued = await services.webhookOperations.redeliver(
        ctx.actor,
        storeId,
        request.params.id,
        request.params.deliveryId,
        request.ip
      )
      return `Event ${queued.eventId} is queued again as ${queued.deliveryId}.`
    }))

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof ReplayBody> }>('/webhooks/:id/replay', {
    schema: { params: IdParams, body: ReplayBody }
  }, async (request, reply) =>
    operate(request, reply, request.params.id, async (ctx, storeId) => {
      const utc = (local: string) => (/Z|[+-]\d{2}:\d{2}$/.test(local) ? local : `${local.length === 16 ? `${local}:00` : local}Z`)
      const until = request.body.until?.trim() ? utc(request.body.until.trim()) : undefined
      const summary = await services.webhookOperations.replay(ctx.actor, storeId, request.params.id, {
        since: utc(request.body.since.trim()),
        until
      }, request.ip)
      return `${summary.queued} events from ${summary.since} to ${summary.until} are queued again.`
    }))
}
