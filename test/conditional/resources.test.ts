import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'

const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/

function as (tenant: Tenant) {
  return { key: tenant.key, store: tenant.storeId }
}

async function etagOf (app: FastifyInstance, tenant: Tenant, url: string): Promise<string> {
  const res = await call(app, { method: 'GET', url, ...as(tenant) })
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`)
  return String(res.headers.etag)
}

t.test('GET of a product, an order and a singleton send a strong ETag and answer If-None-Match with 304', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, { method: 'PUT', url: '/v1/products', ...as(tenant), payload: { products: [{ platformProductId: 'p1' }] } })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    ...as(tenant),
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'a@example.test' }] }
  })
  for (const url of ['/v1/products/p1', '/v1/orders/o1', '/v1/orgs/current', '/v1/loyalty/settings']) {
    const etag = await etagOf(app, tenant, url)
    t.match(etag, STRONG_ETAG, url)
    const again = await call(app, { method: 'GET', url, ...as(tenant), headers: { 'if-none-match': etag } })
    t.equal(again.statusCode, 304, url)
    t.equal(again.body, '', url)
  }
})

t.test('a product\'s ETag changes when an upsert changes it, and not when an upsert sends it unchanged', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const put = (title: string) =>
    call(app, { method: 'PUT', url: '/v1/products', ...as(tenant), payload: { products: [{ platformProductId: 'p1', title }] } })
  await put('Shirt')
  const first = await etagOf(app, tenant, '/v1/products/p1')
  await put('Shirt')
  t.equal(await etagOf(app, tenant, '/v1/products/p1'), first)
  await put('Linen shirt')
  t.not(await etagOf(app, tenant, '/v1/products/p1'), first)
})

t.test('a list answers without an ETag', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/reviews', ...as(tenant) })
  t.equal(res.statusCode, 200)
  t.notOk(res.headers.etag)
})

t.test('erasing a customer with a stale If-Match answers 412 and the customer remains', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/customers',
    ...as(tenant),
    payload: { customers: [{ platformCustomerId: 'c1', email: 'c@example.test' }] }
  })
  const [customer] = (await call(app, { method: 'GET', url: '/v1/customers', ...as(tenant) })).json().data
  const url = `/v1/customers/${customer.id}`
  const res = await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': '"stale"' } })
  t.equal(res.statusCode, 412)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().email, 'c@example.test')
  const etag = await etagOf(app, tenant, url)
  t.equal((await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': etag } })).statusCode, 204)
})

t.test('retiring an outbound webhook with a stale If-Match answers 412 and leaves it active', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'pro' })
  const created = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    ...as(tenant),
    payload: { url: 'https://receiver.example/hook', events: ['*'] }
  })
  t.equal(created.statusCode, 201, created.body)
  const url = `/v1/outbound-webhooks/${created.json().id}`
  t.equal((await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': '"stale"' } })).statusCode, 412)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().status, 'active')
  const etag = await etagOf(app, tenant, url)
  t.equal((await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': etag } })).statusCode, 204)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().status, 'retired')
})

t.test('a category (a content resource) is changed only with its current ETag', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const created = await call(app, { method: 'POST', url: '/v1/categories', ...as(tenant), payload: { name: 'Shirts', slug: 'shirts' } })
  t.equal(created.statusCode, 201, created.body)
  const url = `/v1/categories/${created.json().id}`
  const etag = await etagOf(app, tenant, url)
  const stale = await call(app, { method: 'PATCH', url, ...as(tenant), headers: { 'if-match': '"stale"' }, payload: { name: 'Tops' } })
  t.equal(stale.statusCode, 412)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().name, 'Shirts')
  const fresh = await call(app, { method: 'PATCH', url, ...as(tenant), headers: { 'if-match': etag }, payload: { name: 'Tops' } })
  t.equal(fresh.statusCode, 200)
  t.equal((await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': etag } })).statusCode, 412)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).statusCode, 200)
})

t.test('a write that cannot check an ETag answers If-Match with 412 and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  const url = `/v1/api-keys/${key.id}`
  const res = await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': '"any"' } })
  t.equal(res.statusCode, 412)
  t.equal(res.json().code, 'precondition_failed')
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().status, 'active')
})

t.test('a write that cannot check an ETag still takes If-Match: *', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  const url = `/v1/api-keys/${key.id}`
  t.equal((await call(app, { method: 'DELETE', url, ...as(tenant), headers: { 'if-match': '*' } })).statusCode, 200)
  t.equal((await call(app, { method: 'GET', url, ...as(tenant) })).json().status, 'revoked')
})

t.test('a storefront preflight may ask to send If-None-Match, and a widget read exposes its ETag', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const origin = 'https://shop.example'
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/v1/storefront/summary?productId=p1',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-store-env-id,if-none-match' }
  })
  t.match(String(preflight.headers['access-control-allow-headers']), /if-none-match/i)
  const read = await app.inject({
    method: 'GET',
    url: '/v1/storefront/summary?productId=p1',
    headers: { origin, 'x-store-env-id': tenant.storeId }
  })
  t.equal(read.statusCode, 200)
  t.ok(read.headers.etag)
  t.match(String(read.headers['access-control-expose-headers']), /\bETag\b/)
})
