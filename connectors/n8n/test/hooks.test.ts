import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { IDataObject } from 'n8n-workflow'
import { makeKey, makeTenant } from '../../../test/factories.js'
import { call, sharedApp } from '../../../test/helper.js'
import { appendEvent, deliverUntil, receiver, testWorker } from '../../../test/webhooks/support.js'
import { fakeContext } from './context.js'
import { EvidenceHubTrigger } from './package.js'

const listening = new WeakMap<FastifyInstance, Promise<string>>()

/** A store, the trigger's hook methods for `events` at `webhookUrl`, and the static data n8n would keep for it. */
async function setUp (events: string[], webhookUrl: string) {
  const app = await sharedApp()
  if (!listening.has(app)) listening.set(app, app.listen({ port: 0, host: '127.0.0.1' }))
  const base = await listening.get(app)!
  const tenant = await makeTenant(app)
  const staticData: IDataObject = {}
  const ctx = () =>
    fakeContext({ connection: { base, key: tenant.key, storeId: tenant.storeId }, parameters: { events }, staticData, webhookUrl })
  const methods = new EvidenceHubTrigger().webhookMethods.default
  // The test's own reads and deletes use a key of their own, so they spend none of the node's per-second budget.
  const own = (await makeKey(app, tenant, 'admin')).secret
  const hooks = async () =>
    (await call(app, { url: '/v1/connectors/hooks', key: own, store: tenant.storeId })).json().data as Array<
      { id: string, event: string, targetUrl: string }
    >
  return {
    app,
    tenant: { ...tenant, key: own },
    staticData,
    hooks,
    checkExists: () => methods.checkExists.call(ctx()),
    create: () => methods.create.call(ctx()),
    remove: () => methods.delete.call(ctx())
  }
}

t.test('activation subscribes one hook per event type to the webhook URL; deactivation unsubscribes them', async (t) => {
  const s = await setUp(['review.created', 'order.upserted'], 'http://127.0.0.1:5678/webhook/abc/webhook')
  t.equal(await s.checkExists(), false, 'nothing subscribed yet')
  t.equal(await s.create(), true)
  t.same((await s.hooks()).map((h) => [h.event, h.targetUrl]).sort(), [['order.upserted', 'http://127.0.0.1:5678/webhook/abc/webhook'], [
    'review.created',
    'http://127.0.0.1:5678/webhook/abc/webhook'
  ]])
  t.equal(await s.checkExists(), true)
  t.equal(await s.remove(), true)
  t.same(await s.hooks(), [])
  t.equal(await s.checkExists(), false)
})

t.test('a hook deleted on the service\'s side is found gone (404) and re-created on the next activation', async (t) => {
  const s = await setUp(['review.created', 'order.upserted'], 'http://127.0.0.1:5678/webhook/abc/webhook')
  await s.create()
  const [gone, kept] = await s.hooks()
  await call(s.app, { method: 'DELETE', url: `/v1/connectors/hooks/${gone.id}`, key: s.tenant.key, store: s.tenant.storeId })
  t.equal(await s.checkExists(), false)
  await s.create()
  const now = await s.hooks()
  t.same(now.map((h) => h.event).sort(), ['order.upserted', 'review.created'], 'one hook per event again')
  t.notOk(now.some((h) => h.id === gone.id || h.id === kept.id), 'the survivor was replaced too, not left twice')
  t.equal(await s.checkExists(), true)
})

t.test('a changed choice of events or webhook URL subscribes anew', async (t) => {
  const s = await setUp(['review.created'], 'http://127.0.0.1:5678/webhook/abc/webhook')
  await s.create()
  const other = await setUp(['review.created', 'review.updated'], 'http://127.0.0.1:5678/webhook/abc/webhook')
  Object.assign(other.staticData, s.staticData)
  t.equal(await other.checkExists(), false)
})

t.test('a signed delivery from the service becomes one item, the polled item\'s shape; a forged one is refused with 401', async (t) => {
  const rx = await receiver(t)
  const s = await setUp(['review.created'], rx.url)
  await s.create()
  const event = await appendEvent(s.app, s.tenant, 'review.created', { id: 'rev_1', rating: 5 })
  await deliverUntil(testWorker(t, s.app, [s.tenant.storeId]), rx.received, 1)
  const [delivery] = rx.received
  const webhook = async (rawBody: string, headers: Record<string, unknown>) => {
    const ctx = fakeContext({
      connection: { base: '', key: '', storeId: '' },
      parameters: {},
      staticData: s.staticData,
      request: { rawBody: Buffer.from(rawBody), headers: headers as Record<string, string>, body: JSON.parse(rawBody) }
    })
    return { answer: await new EvidenceHubTrigger().webhook.call(ctx), response: ctx.response() }
  }
  const { answer } = await webhook(delivery.body, delivery.headers)
  t.match(answer.workflowData?.[0], [{ json: { id: event.id, type: 'review.created', reviewId: 'rev_1', rating: 5 } }])
  const forged = await webhook(delivery.body.replace('"rating":5', '"rating":1'), delivery.headers)
  t.same(forged.answer, { noWebhookResponse: true })
  t.match(forged.response, { status: 401, body: { code: 'invalid_signature' } })
})
