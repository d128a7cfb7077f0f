import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

const HOUR = 3_600_000
const FULFILLED = '2026-11-23T12:00:00.000Z'

async function setup (t: Parameters<typeof build>[0], config = {}) {
  const clock = manualClock(Date.parse(FULFILLED))
  const app = await build(t, { clock, config: { reviewRequestDelayHours: 48, ...config } })
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      products: [{ platformProductId: 'mug', title: 'Mug', url: 'https://shop.example/mug' }, {
        platformProductId: 'card',
        title: 'Gift card',
        excludedFromReviewRequests: true,
        exclusionReason: 'gift cards are not reviewed'
      }]
    }
  })
  return { app, tenant, clock }
}

const order = (fields: Record<string, unknown> = {}) => ({
  platformOrderId: 'o-1',
  customerEmail: 'ann@example.test',
  customerName: 'Ann',
  fulfilledAt: FULFILLED,
  lineItems: [{ platformProductId: 'mug', quantity: 1 }],
  ...fields
})

async function upsert (app: FastifyInstance, tenant: Tenant, item: Record<string, unknown>) {
  const res = await call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders: [item] } })
  return res.json()
}

async function requestOf (app: FastifyInstance, tenant: Tenant, id = 'o-1') {
  return (await call(app, { method: 'GET', url: `/v1/orders/${id}`, key: tenant.key, store: tenant.storeId })).json().reviewRequest
}

t.test('an unfulfilled order has no review request state yet, and says why', async (t) => {
  const { app, tenant } = await setup(t)
  await upsert(app, tenant, order({ fulfilledAt: null }))
  t.same(await requestOf(app, tenant), { state: null, reason: 'Waiting for the order to be fulfilled', scheduledFor: null })
})

t.test('a fulfilled order is scheduled the configured delay after fulfilment', async (t) => {
  const { app, tenant } = await setup(t)
  await upsert(app, tenant, order())
  const request = await requestOf(app, tenant)
  t.equal(request.state, 'scheduled')
  t.equal(request.scheduledFor, '2026-11-25T12:00:00.000Z')
  t.match(request.reason, /2026-11-25T12:00:00.000Z/)
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'order.review_request.updated' }).first()
  t.equal(JSON.parse(event.data).reviewRequest.state, 'scheduled')
})

t.test('an order whose products are all excluded is skipped with a reason naming the product', async (t) => {
  const { app, tenant } = await setup(t)
  await upsert(app, tenant, order({ lineItems: [{ platformProductId: 'card', quantity: 2 }] }))
  const request = await requestOf(app, tenant)
  t.equal(request.state, 'skipped')
  t.match(request.reason, /card/)
  t.match(request.reason, /gift cards are not reviewed/)
})

t.test('an order with one excluded and one eligible product is still scheduled', async (t) => {
  const { app, tenant } = await setup(t)
  await upsert(app, tenant, order({ lineItems: [{ platformProductId: 'card', quantity: 1 }, { platformProductId: 'mug', quantity: 1 }] }))
  t.equal((await requestOf(app, tenant)).state, 'scheduled')
})

t.test('a fulfilled order without a customer email is skipped for that reason', async (t) => {
  const { app, tenant } = await setup(t)
  await upsert(app, tenant, order({ customerEmail: null }))
  t.same(await requestOf(app, tenant), { state: 'skipped', reason: 'The order has no customer email', scheduledFor: null })
})

t.test('the scheduler sends nothing before the request is due', async (t) => {
  const { app, tenant, clock } = await setup(t)
  await upsert(app, tenant, order())
  clock.advance(48 * HOUR - 1)
  t.equal(await app.services.reviewRequests.runDue(tenant.storeId), 0)
  t.equal((await requestOf(app, tenant)).state, 'scheduled')
})

t.test('a due request is sent through the local outbox and moves to sent', async (t) => {
  const { app, tenant, clock } = await setup(t)
  await upsert(app, tenant, order())
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const request = await requestOf(app, tenant)
  t.equal(request.state, 'sent')
  t.match(request.reason, /test by the local outbox/)
  const mail = await app.db('mail_outbox').where({ store_env_id: tenant.storeId }).first()
  t.equal(mail.to, 'ann@example.test')
  t.match(mail.text, /https:\/\/shop\.example\/mug/)
  t.equal(await app.services.reviewRequests.runDue(tenant.storeId), 0, 'a sent request is not sent again')
  await upsert(app, tenant, order({ customerName: 'Ann B.' }))
  t.equal((await requestOf(app, tenant)).state, 'sent', 'a re-sent order stays sent')
})

t.test('a request the scheduler moves on moves its order\'s updatedAt, so incremental syncs of GET /orders see it', async (t) => {
  const { app, tenant, clock } = await setup(t)
  await upsert(app, tenant, order())
  const list = async (query: string) =>
    (await call(app, { method: 'GET', url: `/v1/orders?${query}`, key: tenant.key, store: tenant.storeId })).json()
  const first = await list('updatedSince=2000-01-01T00:00:00Z')
  clock.advance(48 * HOUR)
  const sentAt = new Date(clock()).toISOString()
  await app.services.reviewRequests.runDue(tenant.storeId)
  const next = await list(`cursor=${first.meta.nextCursor}`)
  t.same(next.data.map((o: { reviewRequest: { state: string }, updatedAt: string }) => [o.reviewRequest.state, o.updatedAt]), [[
    'sent',
    sentAt
  ]])
  t.equal((await list(`updatedSince=${sentAt}`)).meta.total, 1)
})

t.test('a subject cut to its maximum ends in whole characters, in the message log and in the mail', async (t) => {
  const { app, tenant, clock } = await setup(t)
  const as = { key: tenant.key, store: tenant.storeId }
  await call(app, {
    method: 'PUT',
    url: '/v1/email/templates/review_request',
    ...as,
    payload: { subject: 'Hi {{customerName}}', body: 'Tell us about {{orderId}}' }
  })
  // 200 emoji, the longest name: "Hi " and 297 of them fill the 300 characters a subject may hold.
  const name = '😀'.repeat(200)
  await upsert(app, tenant, order({ customerName: name }))
  clock.advance(48 * HOUR)
  t.equal(await app.services.reviewRequests.runDue(tenant.storeId), 1)
  const [message] = (await call(app, { method: 'GET', url: '/v1/email/messages', ...as })).json().data
  t.notMatch(message.subject, /\uFFFD/)
  t.ok(`Hi ${name}`.startsWith(message.subject.replace(/…$/, '')), 'the subject as composed, cut')
  const mail = await app.db('mail_outbox').where({ store_env_id: tenant.storeId }).first()
  t.notMatch(mail.subject, /\uFFFD/)
})

t.test('a request the mail transport refuses moves to failed with the reason', async (t) => {
  const { app, tenant, clock } = await setup(t, { smtpUrl: 'smtp://127.0.0.1:1' })
  await upsert(app, tenant, order())
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const request = await requestOf(app, tenant)
  t.equal(request.state, 'failed')
  t.match(request.reason, /Mail transport refused the message: .*ECONNREFUSED|connect/i)
})

t.test('a product excluded after scheduling makes the due request skipped, naming it', async (t) => {
  const { app, tenant, clock } = await setup(t)
  await upsert(app, tenant, order())
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'mug', excludedFromReviewRequests: true, exclusionReason: 'recalled' }] }
  })
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const request = await requestOf(app, tenant)
  t.equal(request.state, 'skipped')
  t.match(request.reason, /mug \(recalled\)/)
  t.equal(Number((await app.db('mail_outbox').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 0)
})
