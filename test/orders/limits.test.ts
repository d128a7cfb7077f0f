import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

const HOUR = 3_600_000

async function setup (t: Parameters<typeof build>[0]) {
  const clock = manualClock(Date.parse('2026-11-23T12:00:00Z'))
  const app = await build(t, { clock, config: { reviewRequestDelayHours: 72 } })
  return { app, tenant: await makeTenant(app), clock }
}

const putOrders = (app: FastifyInstance, tenant: Tenant, orders: unknown[]) =>
  call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders } })
const putProducts = (app: FastifyInstance, tenant: Tenant, products: unknown[]) =>
  call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: { products } })
const getOrder = (app: FastifyInstance, tenant: Tenant, id: string) =>
  call(app, { method: 'GET', url: `/v1/orders/${encodeURIComponent(id)}`, key: tenant.key, store: tenant.storeId })
const listOrders = (app: FastifyInstance, tenant: Tenant) =>
  call(app, { method: 'GET', url: '/v1/orders?limit=100', key: tenant.key, store: tenant.storeId })

const longId = (i: number, length = 191) => `${i}-`.padEnd(length, 'x')

t.test('an order of 500 line items with the longest product ids is stored and served', async (t) => {
  const { app, tenant } = await setup(t)
  const lineItems = Array.from({ length: 500 }, (_, i) => ({ platformProductId: longId(i), quantity: 1_000_000 }))
  const res = await putOrders(app, tenant, [{ platformOrderId: 'big', lineItems }, { platformOrderId: 'neighbour' }])
  t.same(res.json(), { received: 2, upserted: 2, failed: 0, errors: [] })
  const got = await getOrder(app, tenant, 'big')
  t.equal(got.statusCode, 200)
  t.same(got.json().lineItems, lineItems)
})

t.test('line items of 4-byte characters, NUL and control characters are stored as sent', async (t) => {
  const { app, tenant } = await setup(t)
  const lineItems = Array.from(
    { length: 500 },
    (_, i) => ({ platformProductId: `${i}`.padEnd(191, i % 2 ? '\u0001' : '\u0000'), quantity: 1 })
  )
  lineItems[0].platformProductId = '😀'.repeat(95)
  const res = await putOrders(app, tenant, [{ platformOrderId: 'odd', customerName: '😀'.repeat(200), lineItems }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const got = (await getOrder(app, tenant, 'odd')).json()
  t.same(got.lineItems, lineItems)
  t.equal(got.customerName, '😀'.repeat(200))
})

t.test('more than 500 line items is a per-item error and the neighbours are stored', async (t) => {
  const { app, tenant } = await setup(t)
  const lineItems = Array.from({ length: 501 }, (_, i) => ({ platformProductId: `p${i}`, quantity: 1 }))
  const res = await putOrders(app, tenant, [{ platformOrderId: 'a' }, { platformOrderId: 'too-many', lineItems }, { platformOrderId: 'b' }])
  t.match(res.json(), { received: 3, upserted: 2, failed: 1, errors: [{ index: 1, platformId: 'too-many', code: 'invalid_item' }] })
  t.same((await listOrders(app, tenant)).json().data.map((o: { platformOrderId: string }) => o.platformOrderId).sort(), ['a', 'b'])
})

t.test('an order whose products all carry 500-character exclusion reasons is skipped with a reason that fits', async (t) => {
  const { app, tenant } = await setup(t)
  const products = Array.from(
    { length: 20 },
    (_, i) => ({ platformProductId: longId(i), excludedFromReviewRequests: true, exclusionReason: '😀'.repeat(500) })
  )
  t.equal((await putProducts(app, tenant, products)).json().upserted, 20)
  const order = {
    platformOrderId: 'excluded',
    customerEmail: 'ann@example.test',
    fulfilledAt: '2026-11-23T12:00:00Z',
    lineItems: products.map((p) => ({ platformProductId: p.platformProductId, quantity: 1 }))
  }
  const res = await putOrders(app, tenant, [order, { platformOrderId: 'neighbour' }])
  t.same(res.json(), { received: 2, upserted: 2, failed: 0, errors: [] })
  const request = (await getOrder(app, tenant, 'excluded')).json().reviewRequest
  t.equal(request.state, 'skipped')
  t.match(request.reason, /^Excluded from review requests: product 0-x+ \(😀+\)/u)
  t.ok([...request.reason].length <= 1000, 'at most 1000 characters')
  t.ok(request.reason.endsWith('…'), 'says it was cut')
  t.ok(request.reason.isWellFormed(), 'no half of a 4-byte character is left at the cut')
})

t.test('a due request whose products were all excluded since is skipped with a reason that fits', async (t) => {
  const { app, tenant, clock } = await setup(t)
  const ids = Array.from({ length: 20 }, (_, i) => longId(i))
  await putProducts(app, tenant, ids.map((id) => ({ platformProductId: id })))
  await putOrders(app, tenant, [{
    platformOrderId: 'o',
    customerEmail: 'ann@example.test',
    fulfilledAt: '2026-11-23T12:00:00Z',
    lineItems: ids.map((id) => ({ platformProductId: id, quantity: 1 }))
  }])
  await putProducts(
    app,
    tenant,
    ids.map((id) => ({ platformProductId: id, excludedFromReviewRequests: true, exclusionReason: 'r'.repeat(500) }))
  )
  clock.advance(72 * HOUR)
  t.equal(await app.services.reviewRequests.runDue(tenant.storeId), 1)
  const request = (await getOrder(app, tenant, 'o')).json().reviewRequest
  t.equal(request.state, 'skipped')
  t.ok(request.reason.length <= 1000)
})

t.test('an order fulfilled on 9999-12-30 is stored unscheduled with a reason, and served', async (t) => {
  const { app, tenant } = await setup(t)
  const res = await putOrders(app, tenant, [{
    platformOrderId: 'late',
    customerEmail: 'ann@example.test',
    fulfilledAt: '9999-12-30T00:00:00Z',
    lineItems: [{ platformProductId: 'p', quantity: 1 }]
  }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const got = await getOrder(app, tenant, 'late')
  t.equal(got.statusCode, 200)
  t.match(got.json(), {
    fulfilledAt: '9999-12-30T00:00:00.000Z',
    reviewRequest: { state: 'skipped', reason: /after 9999/, scheduledFor: null }
  })
  t.equal((await listOrders(app, tenant)).statusCode, 200)
})

t.test('dates outside 1970-9999 or off the calendar are per-item errors and the neighbours are stored', async (t) => {
  const { app, tenant } = await setup(t)
  const bad = [
    '2027-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '1970-01-01T00:30:00+01:00',
    '9999-12-31T23:00:00-02:00',
    '2027-01-01T24:00:00Z',
    '2027-13-01T00:00:00Z',
    '2027-01-01',
    '2027-01-01T00:00:00',
    '+010000-01-01T00:00:00Z'
  ]
  const orders = [...bad.map((placedAt, i) => ({ platformOrderId: `bad-${i}`, placedAt })), {
    platformOrderId: 'ok-1',
    placedAt: '1970-01-01T00:00:00Z'
  }, { platformOrderId: 'ok-2', placedAt: '2028-02-29T23:59:59.999+00:00' }]
  const body = (await putOrders(app, tenant, orders)).json()
  t.equal(body.failed, bad.length)
  t.same(
    body.errors.map((e: { platformId: string, code: string }) => [e.platformId, e.code]),
    bad.map((_, i) => [`bad-${i}`, 'invalid_item'])
  )
  t.match(body.errors[0].message, /placedAt/)
  const stored = (await listOrders(app, tenant)).json().data
  t.same(stored.map((o: { placedAt: string }) => o.placedAt).sort(), ['1970-01-01T00:00:00.000Z', '2028-02-29T23:59:59.999Z'])
})

t.test('a total with more than two decimals is stored rounded to the cent, and re-sending it changes nothing', async (t) => {
  const { app, tenant } = await setup(t)
  const order = { platformOrderId: 'cents', total: 10.005 }
  await putOrders(app, tenant, [order])
  t.equal((await getOrder(app, tenant, 'cents')).json().total, 10.01)
  const before = (await getOrder(app, tenant, 'cents')).json().updatedAt
  await putOrders(app, tenant, [order])
  t.equal((await getOrder(app, tenant, 'cents')).json().updatedAt, before)
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'order.upserted' }).count({ n: '*' })
  t.equal(Number(events[0].n), 1)
})

t.test('totals and quantities out of range are per-item errors', async (t) => {
  const { app, tenant } = await setup(t)
  const bad = [{ total: 1e300 }, { total: -0.01 }, { total: 999_999_999_999.999 }, {
    lineItems: [{ platformProductId: 'p', quantity: 1e300 }]
  }, { lineItems: [{ platformProductId: 'p', quantity: 1.5 }] }]
  const body = (await putOrders(app, tenant, [...bad.map((fields, i) => ({ platformOrderId: `bad-${i}`, ...fields })), {
    platformOrderId: 'max',
    total: 999_999_999_999
  }])).json()
  t.equal(body.failed, bad.length)
  t.equal((await getOrder(app, tenant, 'max')).json().total, 999_999_999_999)
})
