import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, loggedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import {
  BC_SECRET,
  deliverBigCommerce,
  fakeBigCommerce,
  fixture,
  json,
  jsonList,
  nextDeliveryId,
  scopeBody,
  type FakeBigCommerce
} from './bigcommerce.js'

/**
 * BigCommerce deliveries name a record by id; the service reads it from the store's Management API, here a real
 * local HTTP server answering with the API reference's own examples (test/fixtures/platforms/README.md).
 */
const STORE_HASH = 'id30h7ohwf'
const TOKEN = 'bcTokenSecret0123456789abcdefghij'
const PRODUCT_PATH = `/stores/${STORE_HASH}/v3/catalog/products/174?include=images`
const ORDER_PATH = `/stores/${STORE_HASH}/v2/orders/218`
const ORDER_PRODUCTS_PATH = `/stores/${STORE_HASH}/v2/orders/218/products?limit=250&page=1`

interface Setup { app: FastifyInstance, api: FakeBigCommerce, tenant: Tenant, lines: string[] }

/** An app reading BigCommerce at the local server, and a store with the signing secret and (unless told) API credentials. */
async function setup (t: Test, options: { credentials?: boolean, timeoutMs?: number } = {}): Promise<Setup> {
  const api = await fakeBigCommerce(t)
  const { app, lines } = await loggedApp(t, {
    config: { bigcommerceApiUrl: api.url, bigcommerceApiTimeoutMs: options.timeoutMs ?? 2000, logLevel: 'info' }
  })
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/bigcommerce',
    key: tenant.key,
    store: tenant.storeId,
    payload: { secret: BC_SECRET }
  })
  if (options.credentials !== false) await setCredentials(app, tenant)
  return { app, api, tenant, lines }
}

async function setCredentials (app: FastifyInstance, tenant: Tenant, accessToken = TOKEN) {
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/bigcommerce/credentials',
    key: tenant.key,
    store: tenant.storeId,
    payload: { storeHash: STORE_HASH, accessToken, storefrontUrl: 'https://shop.example.com' }
  })
  if (res.statusCode !== 200) throw new Error(res.body)
}

const get = (app: FastifyInstance, tenant: Tenant, url: string) => call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
const eventCount = async (app: FastifyInstance, storeId: string, type: string) =>
  Number((await app.db('events').where({ store_env_id: storeId, type }).count({ n: '*' }))[0].n)
const receipt = (app: FastifyInstance, storeId: string, deliveryId: string) =>
  app.db('platform_webhook_receipts').where({ store_env_id: storeId, platform: 'bigcommerce', delivery_id: deliveryId }).first()

function serveOrder (api: FakeBigCommerce, changes: Record<string, unknown> = {}) {
  api.answer(ORDER_PATH, 200, { ...json('bigcommerce-api-order.json'), ...changes })
  api.answer(ORDER_PRODUCTS_PATH, 200, jsonList('bigcommerce-api-order-products.json'))
}

t.test('a product created at BigCommerce is read from its API with the store\'s token and upserted with an event', async (t) => {
  const { app, api, tenant } = await setup(t)
  api.answer(PRODUCT_PATH, 200, json('bigcommerce-api-product.json'))
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'))
  t.same(res.json(), { received: true, duplicate: false, outcome: 'applied' })
  t.same(api.requests, [{ method: 'GET', url: PRODUCT_PATH, token: TOKEN, accept: 'application/json' }])
  t.match((await get(app, tenant, '/v1/products/174')).json(), {
    title: '1L Le Parfait Jar',
    url: 'https://shop.example.com/all/1l-le-parfait-jar/',
    imageUrl:
      'https://cdn8.bigcommerce.com/s-id30h7ohwf/products/158/images/382/foglinenbeigestripetowel1b_1024x1024__83011__60806.1534344511.560.850.jpg?c=2',
    platformUpdatedAt: '2018-09-05T20:42:07.000Z'
  })
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 1)
})

t.test('an order created at BigCommerce is read with its line items, its review request waiting for shipment', async (t) => {
  const { app, api, tenant } = await setup(t)
  serveOrder(api)
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-created.json'))
  t.equal(res.json().outcome, 'applied')
  t.same(api.requests.map((r) => [r.url, r.token]), [[ORDER_PATH, TOKEN], [ORDER_PRODUCTS_PATH, TOKEN]])
  const order = (await get(app, tenant, '/v1/orders/218')).json()
  t.match(order, {
    customerEmail: 'janedoe@example.com',
    customerName: 'Jane Doe',
    total: 69.84,
    currency: 'USD',
    placedAt: '2019-03-05T21:40:11.000Z',
    fulfilledAt: null,
    platformUpdatedAt: '2019-03-11T15:17:25.000Z',
    reviewRequest: { state: null, reason: 'Waiting for the order to be fulfilled' }
  })
  t.same(order.lineItems, [{ platformProductId: '77', quantity: 1 }], 'the bundled line is part of product 77, not a product of its own')
  t.equal(await eventCount(app, tenant.storeId, 'order.upserted'), 1)
})

t.test('an order whose status changes to Shipped is fulfilled at its shipping date and its review request scheduled', async (t) => {
  const { app, api, tenant } = await setup(t)
  serveOrder(api)
  await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-created.json'))
  serveOrder(api, {
    status_id: 2,
    status: 'Shipped',
    date_shipped: 'Wed, 13 Mar 2019 16:35:37 +0000',
    date_modified: 'Wed, 13 Mar 2019 16:35:37 +0000',
    items_shipped: 4
  })
  const res = await deliverBigCommerce(
    app,
    tenant.storeId,
    fixture('bigcommerce-order-status-updated.json').toString().replace('173331', '218')
  )
  t.equal(res.json().outcome, 'applied')
  const order = (await get(app, tenant, '/v1/orders/218')).json()
  t.equal(order.fulfilledAt, '2019-03-13T16:35:37.000Z')
  t.equal(order.reviewRequest.state, 'scheduled')
  t.equal(await eventCount(app, tenant.storeId, 'order.review_request.updated'), 2, 'waiting, then scheduled, as for PUT /orders')
})

t.test('without API credentials a product or order notification is acknowledged and ignored, with the reason recorded', async (t) => {
  const { app, api, tenant } = await setup(t, { credentials: false })
  const id = nextDeliveryId()
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.same(res.json(), { received: true, duplicate: false, outcome: 'ignored' })
  t.match(
    (await receipt(app, tenant.storeId, id)).detail,
    /no BigCommerce API credentials.*PUT \/v1\/webhooks\/platforms\/bigcommerce\/credentials/
  )
  t.same(api.requests, [])
  t.equal((await get(app, tenant, '/v1/products/174')).statusCode, 404)
})

t.test('a record BigCommerce answers 404 for (deleted meanwhile) is acknowledged and recorded', async (t) => {
  const { app, api, tenant } = await setup(t)
  const id = nextDeliveryId()
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-created.json'), { id })
  t.same(res.json(), { received: true, duplicate: false, outcome: 'ignored' })
  t.same(api.requests.map((r) => r.url), [ORDER_PATH])
  t.match((await receipt(app, tenant.storeId, id)).detail, /404 for order 218/)
  t.equal((await get(app, tenant, '/v1/orders/218')).statusCode, 404)
})

t.test('a BigCommerce 500 gets a 503 so BigCommerce retries, and the retry of the same delivery is applied once', async (t) => {
  const { app, api, tenant } = await setup(t)
  api.answer(PRODUCT_PATH, 500, { status: 500, title: 'Internal Server Error' })
  const id = nextDeliveryId()
  const failed = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.equal(failed.statusCode, 503)
  t.equal(failed.json().code, 'service_unavailable')
  t.match(failed.json().message, /answered 500 for product 174/)
  t.equal(await receipt(app, tenant.storeId, id), undefined, 'the delivery id is not kept as processed')
  t.equal((await get(app, tenant, '/v1/products/174')).statusCode, 404)

  api.answer(PRODUCT_PATH, 200, json('bigcommerce-api-product.json'))
  const retried = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.same(retried.json(), { received: true, duplicate: false, outcome: 'applied' })
  const again = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.same(again.json(), { received: true, duplicate: true, outcome: null })
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 1)
})

t.test('BigCommerce refusing the token (401) also gets a 503, with a hint, and nothing is applied', async (t) => {
  const { app, api, tenant } = await setup(t)
  api.answer(ORDER_PATH, 401, { status: 401, title: 'Unauthorized' })
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-created.json'))
  t.equal(res.statusCode, 503)
  t.match(res.json().message, /answered 401 for order 218 \(check the API account's token/)
  t.equal(await eventCount(app, tenant.storeId, 'order.upserted'), 0)
})

t.test('no answer from BigCommerce within the timeout gets a 503 and the delivery stays open for the retry', async (t) => {
  const { app, api, tenant } = await setup(t, { timeoutMs: 150 })
  api.answer(PRODUCT_PATH, 200, json('bigcommerce-api-product.json'), 2000)
  const id = nextDeliveryId()
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.equal(res.statusCode, 503)
  t.match(res.json().message, /no answer within 150 ms/)
  t.equal(await receipt(app, tenant.storeId, id), undefined)
})

t.test('the access token is in no answer, receipt or log line, whatever BigCommerce answers', async (t) => {
  const { app, api, tenant, lines } = await setup(t)
  const answers: string[] = []
  for (const status of [500, 401, 404]) {
    api.answer(PRODUCT_PATH, status, { status })
    answers.push((await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'))).body)
  }
  answers.push((await get(app, tenant, '/v1/webhooks/platforms')).body)
  answers.push((await get(app, tenant, '/v1/account/audit-log')).body)
  t.equal(api.requests.length, 3)
  t.ok(lines.some((line) => line.includes('platform API unavailable')), 'the failures are logged')
  const seen = [...answers, ...lines, JSON.stringify(await app.db('platform_webhook_receipts').where({ store_env_id: tenant.storeId }))]
  for (const text of seen) t.notMatch(text, TOKEN)
})

t.test('a store\'s deliveries are read with its own credentials only', async (t) => {
  const { app, api, tenant } = await setup(t)
  const other = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/bigcommerce',
    key: other.key,
    store: other.storeId,
    payload: { secret: BC_SECRET }
  })
  api.answer(PRODUCT_PATH, 200, json('bigcommerce-api-product.json'))
  const res = await deliverBigCommerce(app, other.storeId, fixture('bigcommerce-product-created.json'))
  t.equal(res.json().outcome, 'ignored', 'the other store has no credentials, and never borrows these')
  t.same(api.requests, [])
  await setCredentials(app, other, 'otherStoreToken0123456789abcdef')
  await deliverBigCommerce(app, other.storeId, fixture('bigcommerce-product-created.json'))
  t.same(api.requests.map((r) => r.token), ['otherStoreToken0123456789abcdef'])
  t.equal((await get(app, tenant, '/v1/products/174')).statusCode, 404, 'the product went to the store that was notified')
  t.equal((await get(app, other, '/v1/products/174')).statusCode, 200)
})

t.test('an archived BigCommerce order is removed without reading the API, as a deletion', async (t) => {
  const { app, api, tenant } = await setup(t)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: '218', customerEmail: 'janedoe@example.com' }] }
  })
  const res = await deliverBigCommerce(app, tenant.storeId, scopeBody('store/order/archived', 'order', 218))
  t.equal(res.json().outcome, 'applied')
  t.equal((await get(app, tenant, '/v1/orders/218')).statusCode, 404)
  t.equal(await eventCount(app, tenant.storeId, 'order.deleted'), 1)
  t.same(api.requests, [])
})

t.test('a scope that is not synced, or a data.id that is not a number, is acknowledged without reading the API', async (t) => {
  const { app, api, tenant } = await setup(t)
  const bodies = [
    scopeBody('store/cart/created', 'order', 218),
    JSON.stringify({ scope: 'store/product/updated', data: { type: 'product', id: '../../v2/orders/1' } }),
    JSON.stringify({ scope: 'store/product/updated', data: { type: 'product', id: -5 } })
  ]
  for (const body of bodies) t.equal((await deliverBigCommerce(app, tenant.storeId, body)).json().outcome, 'ignored', body)
  t.same(api.requests, [])
})

t.test('an order created already Completed is fulfilled at its last change and its review request scheduled at once', async (t) => {
  const { app, api, tenant } = await setup(t)
  serveOrder(api, { status_id: 10, status: 'Completed' })
  t.equal((await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-created.json'))).json().outcome, 'applied')
  const order = (await get(app, tenant, '/v1/orders/218')).json()
  t.equal(order.fulfilledAt, '2019-03-11T15:17:25.000Z', 'no date_shipped (a digital order): date_modified')
  t.equal(order.reviewRequest.state, 'scheduled')
})

t.test('an answer whose fields break the item rules is recorded as rejected, never a 500', async (t) => {
  const { app, api, tenant } = await setup(t)
  const product = json('bigcommerce-api-product.json')
  api.answer(PRODUCT_PATH, 200, {
    data: { ...(product.data as object), name: 'é'.repeat(5000), date_modified: '0000-01-01T00:00:00+00:00' }
  })
  const id = nextDeliveryId()
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'), { id })
  t.same(res.json(), { received: true, duplicate: false, outcome: 'rejected' })
  t.ok((await receipt(app, tenant.storeId, id)).detail)
})

t.test('an answer that is not JSON gets a 503, and one naming another record is acknowledged without applying it', async (t) => {
  const { app, api, tenant } = await setup(t)
  api.answer(PRODUCT_PATH, 200)
  t.equal((await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'))).statusCode, 503)
  api.answer(PRODUCT_PATH, 200, { data: { id: 175, name: 'Another product' }, meta: {} })
  t.equal((await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-created.json'))).json().outcome, 'ignored')
  t.equal((await get(app, tenant, '/v1/products/174')).statusCode, 404)
  t.equal((await get(app, tenant, '/v1/products/175')).statusCode, 404)
})
