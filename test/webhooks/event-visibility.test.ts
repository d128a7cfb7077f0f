import t from 'tap'
import { build, call, manualClock, sharedApp, errorBody } from '../helper.js'
import type { FastifyInstance } from 'fastify'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import { appendEvent, receiver, testWorker } from './support.js'

/*
 * docs/contract/event-visibility.md#who-sees-which-events: what a credential sees of events follows its read scopes on
 * each event's resource, on the event log and on webhook subscriptions alike.
 */

const EMAIL = 'maya.roberts@example.test'

/** Registers a webhook with a key made of `role` and `scopes`. */
async function register (
  app: FastifyInstance,
  tenant: Tenant,
  role: 'admin' | 'editor',
  scopes: string[],
  events: string[],
  url = 'http://127.0.0.1:9/x'
) {
  const key = await makeKey(app, tenant, role, scopes)
  return call(app, { method: 'POST', url: '/v1/outbound-webhooks', key: key.secret, store: tenant.storeId, payload: { url, events } })
}

t.test('a key with only outbound-webhooks:read sees no order event, as GET /v1/orders refuses it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const order = { platformOrderId: '1042', customerEmail: EMAIL }
  const put = await call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders: [order] } })
  t.equal(put.statusCode, 200)
  const reader = await makeKey(app, tenant, 'viewer', ['outbound-webhooks:read'])
  const orders = await call(app, { method: 'GET', url: '/v1/orders', key: reader.secret, store: tenant.storeId })
  t.equal(orders.json().code, 'insufficient_scope')
  const log = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: reader.secret, store: tenant.storeId })
  t.equal(log.statusCode, 200)
  t.same(errorBody(log), { events: [], next_cursor: null })
  t.notOk(log.body.includes(EMAIL))
})

t.test('the event log returns only the events the key may read, and the cursor walks past the others', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const reviews = []
  for (let i = 0; i < 3; i++) {
    await appendEvent(app, tenant, 'order.upserted', { customerEmail: EMAIL })
    reviews.push(await appendEvent(app, tenant, 'review.created', { n: i }))
    await appendEvent(app, tenant, 'loyalty.birthday_reward', {})
  }
  const reader = await makeKey(app, tenant, 'viewer', ['outbound-webhooks:read', 'reviews:read'])
  const seen: string[] = []
  let since = ''
  for (let page = 0; page < 5; page++) {
    const res = await call(app, {
      method: 'GET',
      url: `/v1/outbound-webhooks/events?limit=1${since ? `&since=${since}` : ''}`,
      key: reader.secret,
      store: tenant.storeId
    })
    t.notOk(res.body.includes(EMAIL), `page ${page} has no order data`)
    const body = res.json()
    seen.push(...body.events.map((e: { id: string }) => e.id))
    if (body.next_cursor === null) break
    since = body.next_cursor
  }
  t.same(seen, reviews.map((e) => e.id), 'every review event once, in order, and nothing else')
})

t.test('events:read is accepted beside outbound-webhooks:read for the event log', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const event = await appendEvent(app, tenant, 'order.upserted', { platformOrderId: '1' })
  const withEvents = await makeKey(app, tenant, 'viewer', ['events:read', 'orders:read'])
  const res = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: withEvents.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.same(res.json().events.map((e: { id: string }) => e.id), [event.id])
  const withoutLog = await makeKey(app, tenant, 'viewer', ['orders:read'])
  const refused = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: withoutLog.secret, store: tenant.storeId })
  t.equal(refused.statusCode, 403)
  t.same(errorBody(refused), {
    code: 'insufficient_scope',
    message: 'The credential\'s scopes do not allow read on events (or outbound-webhooks)'
  })
})

t.test('a key with outbound-webhooks:write alone cannot subscribe a webhook to order events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await register(app, tenant, 'editor', ['outbound-webhooks:write'], ['order.upserted'])
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
  t.equal((await app.db('webhook_subscriptions').where({ store_env_id: tenant.storeId })).length, 0, 'nothing registered')
  // ["*"] resolves to what it may read: the webhooks' own events only (outbound_webhook.* need outbound-webhooks:read).
  const all = await register(app, tenant, 'editor', ['outbound-webhooks:write'], ['*'])
  t.same(all.json().events, ['outbound_webhook.created', 'outbound_webhook.updated', 'outbound_webhook.deleted'])
})

t.test('a webhook can subscribe to the event types of resources its creator may read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scopes = ['outbound-webhooks:write', 'orders:read']
  const res = await register(app, tenant, 'editor', scopes, ['order.upserted'])
  t.equal(res.statusCode, 201)
  t.same(res.json().events, ['order.upserted'])
  const mixed = await register(app, tenant, 'editor', scopes, ['order.upserted', 'review.created'])
  t.match(mixed.json(), { code: 'insufficient_scope', message: /reviews/ })
})

t.test('an editor may read the events of resources it reads but does not write (affiliates, support); without their scope it is a scope refusal', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const events = ['affiliate.created', 'support_request.created']
  const res = await register(app, tenant, 'editor', [], events)
  t.equal(res.statusCode, 201, res.body)
  t.same(res.json().events, events)
  const scoped = await register(app, tenant, 'editor', ['outbound-webhooks:write'], ['affiliate.created'])
  t.equal(scoped.statusCode, 403)
  t.same(errorBody(scoped), { code: 'insufficient_scope', message: 'The credential\'s scopes do not allow read on affiliates' })
})

t.test('an editor cannot subscribe a webhook to backup or billing events: role_forbidden, as GET on those resources answers', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [type, resource] of [['backup.created', 'backups'], ['subscription.updated', 'billing']]) {
    const res = await register(app, tenant, 'editor', [], [type])
    t.equal(res.statusCode, 403, type)
    t.match(res.json(), { code: 'role_forbidden', message: new RegExp(resource) }, type)
  }
})

t.test('["*"] stores the event types its creator may read at creation, and only those are delivered', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const res = await register(app, tenant, 'editor', ['outbound-webhooks:write', 'reviews:read'], ['*'], rx.url)
  t.equal(res.statusCode, 201)
  t.same(res.json().events, [
    'review.created',
    'review.published',
    'review.updated',
    'review.deleted',
    'outbound_webhook.created',
    'outbound_webhook.updated',
    'outbound_webhook.deleted'
  ])
  const row = await app.db('webhook_subscriptions').where({ id: res.json().id }).first()
  t.same(JSON.parse(row.events), res.json().events, 'the resolved list is what is stored')

  await appendEvent(app, tenant, 'order.upserted', { customerEmail: EMAIL })
  const review = await appendEvent(app, tenant, 'review.created', { n: 1 })
  await testWorker(t, app, [tenant.storeId]).runOnce()
  // Its own registration is not sent to it (test/events/config-changes.test.ts); the order event is not either.
  t.same(rx.bodies().map((b) => b.id), [review.id])
})

t.test('["*"] from a credential that may read everything stays ["*"]', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await register(app, tenant, 'admin', ['read', 'outbound-webhooks:write'], ['*'])
  t.equal(res.statusCode, 201)
  t.same(res.json().events, ['*'])
})
