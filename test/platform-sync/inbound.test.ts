import { createHmac } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { BC_SECRET, deliverBigCommerce, fixture } from './bigcommerce.js'

/** Signatures are made here by each platform's documented algorithm, never by the code under test. */
const base64Hmac = (key: string | Buffer, content: Buffer | string) => createHmac('sha256', key).update(content).digest('base64')

const SHOPIFY_SECRET = 'shpss_test_secret_0123456789'
const WOO_SECRET = 'woo-secret-9876543210'

let deliveries = 0
const nextId = () => `dlv-${Date.now()}-${++deliveries}`

async function setSecret (app: FastifyInstance, tenant: Tenant, platform: string, secret: string) {
  const res = await call(app, {
    method: 'PUT',
    url: `/v1/webhooks/platforms/${platform}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { secret }
  })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res
}

function shopify (
  app: FastifyInstance,
  storeId: string,
  topic: string,
  body: Buffer | string,
  options: { id?: string, secret?: string, hmac?: string | null } = {}
) {
  const hmac = options.hmac === undefined ? base64Hmac(options.secret ?? SHOPIFY_SECRET, body) : options.hmac
  return app.inject({
    method: 'POST',
    url: `/v1/webhooks/shopify/${storeId}`,
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-webhook-id': options.id ?? nextId(),
      'x-shopify-shop-domain': 'example.myshopify.com',
      ...(hmac === null ? {} : { 'x-shopify-hmac-sha256': hmac })
    },
    payload: body
  })
}

function woocommerce (app: FastifyInstance, storeId: string, topic: string, body: Buffer | string) {
  return app.inject({
    method: 'POST',
    url: `/v1/webhooks/woocommerce/${storeId}`,
    headers: {
      'content-type': 'application/json',
      'x-wc-webhook-topic': topic,
      'x-wc-webhook-delivery-id': nextId(),
      'x-wc-webhook-signature': base64Hmac(WOO_SECRET, body)
    },
    payload: body
  })
}

const get = (app: FastifyInstance, tenant: Tenant, url: string) => call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
const eventCount = async (app: FastifyInstance, storeId: string, type: string) =>
  Number((await app.db('events').where({ store_env_id: storeId, type }).count({ n: '*' }))[0].n)

function withProduct (changes: Record<string, unknown>): string {
  return JSON.stringify({
    ...JSON.parse(fixture('shopify-products-create.json').toString().replace('"id": 788032119674292922', '"id": "788032119674292922"')),
    ...changes
  })
}

t.test('a platform secret is stored encrypted and never shown again', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  t.same(Object.keys(res.json()).sort(), ['platform', 'receiverUrl', 'updatedAt'])
  t.match(res.json().receiverUrl, new RegExp(`/v1/webhooks/shopify/${tenant.storeId}$`))
  const listed = await get(app, tenant, '/v1/webhooks/platforms')
  t.notMatch(listed.body, SHOPIFY_SECRET)
  const row = await app.db('platform_webhook_secrets').where({ store_env_id: tenant.storeId }).first()
  t.notMatch(row.secret_sealed, SHOPIFY_SECRET)
  t.equal((await app.db('audit_log').where({ org_id: tenant.orgId, action: 'platform_webhook.secret_set' })).length, 1)
})

t.test('a platform secret outside its bounds or an unknown platform is a 400', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const [platform, secret] of [['shopify', 'x'.repeat(501)], ['shopify', 'short'], ['magento', SHOPIFY_SECRET], ['shopify', 42]] as const
  ) {
    const res = await call(app, {
      method: 'PUT',
      url: `/v1/webhooks/platforms/${platform}`,
      key: tenant.key,
      store: tenant.storeId,
      payload: { secret }
    })
    t.equal(res.statusCode, 400, `${platform} ${String(secret).slice(0, 10)}`)
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('a Shopify product notification signed as documented is applied as a product upsert', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  const res = await shopify(app, tenant.storeId, 'products/create', fixture('shopify-products-create.json'))
  t.equal(res.statusCode, 200)
  t.same(res.json(), { received: true, duplicate: false, outcome: 'applied' })
  const product = (await get(app, tenant, '/v1/products/788032119674292922')).json()
  t.match(product, {
    title: 'Example T-Shirt',
    url: 'https://example.myshopify.com/products/example-t-shirt',
    platformUpdatedAt: '2022-01-01T00:00:00.000Z'
  })
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 1)
})

t.test('a wrong, missing or other-secret signature is refused with 401 and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await setSecret(app, other, 'shopify', 'the-other-store-secret')
  const body = fixture('shopify-products-create.json')
  const cases = [
    await shopify(app, tenant.storeId, 'products/create', body, { hmac: base64Hmac('wrong-secret', body) }),
    await shopify(app, tenant.storeId, 'products/create', body, { hmac: null }),
    await shopify(app, tenant.storeId, 'products/create', body, { hmac: createHmac('sha256', SHOPIFY_SECRET).update(body).digest('hex') }),
    await shopify(app, tenant.storeId, 'products/create', body, { secret: 'the-other-store-secret' }),
    await shopify(app, tenant.storeId, 'products/create', Buffer.concat([body, Buffer.from(' ')]), {
      hmac: base64Hmac(SHOPIFY_SECRET, body)
    }),
    await shopify(app, 'env_doesnotexist0000000', 'products/create', body)
  ]
  for (const res of cases) {
    t.equal(res.statusCode, 401)
    t.equal(res.json().code, 'invalid_signature')
  }
  t.equal((await get(app, tenant, '/v1/products')).json().meta.total, 0)
})

t.test('a store without a secret for the platform refuses its notifications', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await woocommerce(app, tenant.storeId, 'product.created', fixture('woocommerce-product.json'))
  t.equal(res.statusCode, 401)
})

t.test('a delivery received twice is applied once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  const body = withProduct({ title: 'First' })
  const first = await shopify(app, tenant.storeId, 'products/update', body, { id: 'same-delivery' })
  const again = await shopify(app, tenant.storeId, 'products/update', withProduct({ title: 'First' }), { id: 'same-delivery' })
  t.equal(first.json().duplicate, false)
  t.same(again.json(), { received: true, duplicate: true, outcome: null })
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 1)
})

t.test('an older updated_at arriving late never overwrites a newer one', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await shopify(app, tenant.storeId, 'products/update', withProduct({ title: 'Newer', updated_at: '2024-05-02T10:00:00Z' }))
  const late = await shopify(app, tenant.storeId, 'products/update', withProduct({ title: 'Older', updated_at: '2024-05-01T10:00:00Z' }))
  t.equal(late.statusCode, 200)
  t.match((await get(app, tenant, '/v1/products/788032119674292922')).json(), {
    title: 'Newer',
    platformUpdatedAt: '2024-05-02T10:00:00.000Z'
  })
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 1)
})

t.test('a notification keeps the review-request exclusion the store set through the API', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: '788032119674292922', excludedFromReviewRequests: true, exclusionReason: 'Samples' }] }
  })
  await shopify(app, tenant.storeId, 'products/update', fixture('shopify-products-create.json'))
  t.match((await get(app, tenant, '/v1/products/788032119674292922')).json(), {
    title: 'Example T-Shirt',
    excludedFromReviewRequests: true,
    exclusionReason: 'Samples'
  })
})

t.test('a Shopify product deletion removes the product and appends product.deleted', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await shopify(app, tenant.storeId, 'products/create', fixture('shopify-products-create.json'))
  const res = await shopify(app, tenant.storeId, 'products/delete', '{"id":788032119674292922}')
  t.equal(res.json().outcome, 'applied')
  t.equal((await get(app, tenant, '/v1/products/788032119674292922')).statusCode, 404)
  t.equal(await eventCount(app, tenant.storeId, 'product.deleted'), 1)
})

t.test('a fulfilled Shopify order schedules its review request as an API upsert does', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  const created = await shopify(app, tenant.storeId, 'orders/create', fixture('shopify-orders-create.json'))
  t.equal(created.json().outcome, 'applied')
  const order = (await get(app, tenant, '/v1/orders/820982911946154508')).json()
  t.match(order, {
    customerEmail: 'jon@example.com',
    customerName: 'John Smith',
    total: 398,
    currency: 'USD',
    fulfilledAt: null,
    lineItems: [{ platformProductId: '632910392', quantity: 2 }]
  })
  const fulfilledBody = fixture('shopify-orders-create.json').toString()
    .replace('"fulfillment_status": "pending"', '"fulfillment_status": "fulfilled"')
    .replace('"fulfillments": []', '"fulfillments": [{ "id": 255858046, "created_at": "2022-01-02T10:00:00-05:00", "status": "success" }]')
    .replace(/"updated_at": "2021-12-31T19:00:00-05:00"/, '"updated_at": "2022-01-02T10:00:00-05:00"')
  await shopify(app, tenant.storeId, 'orders/fulfilled', fulfilledBody)
  const fulfilled = (await get(app, tenant, '/v1/orders/820982911946154508')).json()
  t.equal(fulfilled.fulfilledAt, '2022-01-02T15:00:00.000Z')
  t.equal(fulfilled.reviewRequest.state, 'scheduled')
  t.equal(await eventCount(app, tenant.storeId, 'order.review_request.updated'), 2, 'waiting, then scheduled, as for PUT /orders')
})

t.test('WooCommerce product and order notifications signed as documented are applied', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'woocommerce', WOO_SECRET)
  t.equal((await woocommerce(app, tenant.storeId, 'product.created', fixture('woocommerce-product.json'))).json().outcome, 'applied')
  t.match((await get(app, tenant, '/v1/products/794')).json(), {
    title: 'Premium Quality',
    url: 'https://example.com/product/premium-quality-19/',
    imageUrl: 'https://example.com/wp-content/uploads/2017/03/T_2_front-4.jpg',
    platformUpdatedAt: '2017-03-23T20:01:14.000Z'
  })
  const completed = fixture('woocommerce-order.json').toString().replace('"status": "processing"', '"status": "completed"')
    .replace('"date_completed_gmt": null', '"date_completed_gmt": "2017-03-25T10:00:00"')
  t.equal((await woocommerce(app, tenant.storeId, 'order.updated', completed)).json().outcome, 'applied')
  t.match((await get(app, tenant, '/v1/orders/727')).json(), {
    customerEmail: 'john.doe@example.com',
    customerName: 'John Doe',
    total: 29.35,
    fulfilledAt: '2017-03-25T10:00:00.000Z',
    reviewRequest: { state: 'scheduled' }
  })
})

t.test('BigCommerce deliveries are verified by the Standard Webhooks scheme and a deletion is applied', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'bigcommerce', BC_SECRET)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: '205', title: 'Doomed' }] }
  })
  const stale = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-deleted.json'), {
    at: Math.floor(Date.now() / 1000) - 3600
  })
  t.equal(stale.statusCode, 401, 'a timestamp outside the tolerance is refused')
  const res = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-product-deleted.json'))
  t.same(res.json(), { received: true, duplicate: false, outcome: 'applied' })
  t.equal((await get(app, tenant, '/v1/products/205')).statusCode, 404)
  const update = await deliverBigCommerce(app, tenant.storeId, fixture('bigcommerce-order-status-updated.json'))
  t.equal(update.json().outcome, 'ignored', 'without API credentials an id-only change is acknowledged, not applied')
})

t.test('a signed body that is not JSON is acknowledged and ignored, never a 500', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  for (const body of ['not json', '{"id": "x".repeat}', '[]', '{"id": 1e400}', `{"id":1,"title":"${'é'.repeat(600)}"}`]) {
    const res = await shopify(app, tenant.storeId, 'products/update', body)
    t.equal(res.statusCode, 200, body.slice(0, 20))
    t.not(res.json().outcome, 'applied')
  }
})

/** A receipt as an attempt still applying the delivery leaves it (or one that died mid-way, `ago` ms back). */
async function claimedEarlier (app: FastifyInstance, tenant: Tenant, deliveryId: string, ago: number) {
  await app.db('platform_webhook_receipts').insert({
    org_id: tenant.orgId,
    store_env_id: tenant.storeId,
    platform: 'shopify',
    delivery_id: deliveryId,
    topic: 'products/update',
    outcome: 'processing',
    detail: null,
    received_at: Date.now() - ago
  })
}

t.test('a delivery an earlier attempt is still applying gets a 503, so the platform retries rather than lose it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await claimedEarlier(app, tenant, 'in-flight-delivery', 0)
  const res = await shopify(app, tenant.storeId, 'products/update', fixture('shopify-products-create.json'), { id: 'in-flight-delivery' })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'service_unavailable')
  t.equal((await get(app, tenant, '/v1/products/788032119674292922')).statusCode, 404)
})

t.test('a delivery left half-applied by an attempt that died is applied by the platform\'s retry', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await setSecret(app, tenant, 'shopify', SHOPIFY_SECRET)
  await claimedEarlier(app, tenant, 'abandoned-delivery', 10 * 60_000)
  const res = await shopify(app, tenant.storeId, 'products/update', fixture('shopify-products-create.json'), { id: 'abandoned-delivery' })
  t.same(res.json(), { received: true, duplicate: false, outcome: 'applied' })
  t.equal((await get(app, tenant, '/v1/products/788032119674292922')).statusCode, 200)
  const again = await shopify(app, tenant.storeId, 'products/update', fixture('shopify-products-create.json'), { id: 'abandoned-delivery' })
  t.equal(again.json().duplicate, true)
})
