import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeStore, makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

const review = { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann@example.test' }

function putOrigins (app: Parameters<typeof call>[0], key: string, storeId: string, origins: unknown) {
  return call(app, { method: 'PUT', url: `/v1/account/stores/${storeId}/origins`, key, payload: { origins } })
}

t.test('GET /account/stores/:id/origins answers the store\'s allowed origins', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example', 'http://localhost:5173'] })
  const res = await call(app, { method: 'GET', url: `/v1/account/stores/${tenant.storeId}/origins`, key: tenant.key })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { origins: ['https://shop.example', 'http://localhost:5173'] })
})

t.test('PUT /account/stores/:id/origins replaces the list and answers it normalised, without duplicates', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await putOrigins(app, tenant.key, tenant.storeId, [
    'HTTPS://Shop.Example:443/',
    'https://shop.example',
    'http://localhost:3000',
    'http://[::1]:80'
  ])
  t.equal(res.statusCode, 200)
  t.same(res.json(), { origins: ['https://shop.example', 'http://localhost:3000', 'http://[::1]'] })
  const stores = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.same(stores.json().data[0].allowedOrigins, ['https://shop.example', 'http://localhost:3000', 'http://[::1]'])
})

t.test('changing the origins writes store.origins_updated to the audit log with actor and subject', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://old.example'] })
  const key = await makeKey(app, tenant, 'admin')
  await putOrigins(app, key.secret, tenant.storeId, ['https://new.example'])
  const log = await call(app, {
    method: 'GET',
    url: '/v1/account/audit-log?action=store.origins_updated',
    key: tenant.key,
    store: tenant.storeId
  })
  t.match(log.json().data, [{
    action: 'store.origins_updated',
    actor: `api_key:${key.id}`,
    subject: `store:${tenant.storeId}`,
    details: { added: ['https://new.example'], removed: ['https://old.example'] }
  }])
  t.equal(log.json().data.length, 1)
})

t.test('a PUT that changes nothing writes no audit entry', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  t.equal((await putOrigins(app, tenant.key, tenant.storeId, ['https://shop.example/'])).statusCode, 200)
  const log = await call(app, {
    method: 'GET',
    url: '/v1/account/audit-log?action=store.origins_updated',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(log.json().data.length, 0)
})

t.test('an editor key reads the origins but is refused a change with role_forbidden', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editor = await makeKey(app, tenant, 'editor')
  const read = await call(app, { method: 'GET', url: `/v1/account/stores/${tenant.storeId}/origins`, key: editor.secret })
  t.equal(read.statusCode, 200)
  const res = await putOrigins(app, editor.secret, tenant.storeId, ['https://evil.example'])
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('a viewer key is refused a change with role_read_only', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const res = await putOrigins(app, viewer.secret, tenant.storeId, ['https://evil.example'])
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_read_only')
})

t.test('a key whose scopes do not cover account writes is refused with insufficient_scope', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scoped = await makeKey(app, tenant, 'admin', ['reviews:write', 'account:read'])
  t.equal((await call(app, { method: 'GET', url: `/v1/account/stores/${tenant.storeId}/origins`, key: scoped.secret })).statusCode, 200)
  const res = await putOrigins(app, scoped.secret, tenant.storeId, ['https://evil.example'])
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
})

t.test('another organization\'s store, or an unknown one, is store_env_not_found and is not changed', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const res = await putOrigins(app, tenant.key, other.storeId, ['https://evil.example'])
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
  t.same((await app.stores.find(other.storeId))!.allowedOrigins, ['https://shop.example'])
  const read = await call(app, { method: 'GET', url: `/v1/account/stores/${other.storeId}/origins`, key: tenant.key })
  t.equal(read.json().code, 'store_env_not_found')
  const unknown = await call(app, { method: 'GET', url: '/v1/account/stores/env_nope/origins', key: tenant.key })
  t.equal(unknown.statusCode, 404)
})

t.test('each store of the organization has its own list', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant, { origins: ['https://second.example'] })
  await putOrigins(app, tenant.key, second, ['https://outlet.example'])
  t.same((await app.stores.find(second))!.allowedOrigins, ['https://outlet.example'])
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('a lapsed store answers subscription_expired, as other store calls do', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const res = await putOrigins(app, tenant.key, tenant.storeId, ['https://new.example'])
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'subscription_expired')
})

t.test('an added origin passes the storefront check on the very next request, a removed one is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  const before = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    origin: 'https://new.example',
    ip: '203.0.113.1',
    payload: review
  })
  t.equal(before.json().code, 'origin_not_allowed')

  await putOrigins(app, tenant.key, tenant.storeId, ['https://new.example'])
  const added = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    origin: 'https://new.example',
    ip: '203.0.113.2',
    payload: review
  })
  t.equal(added.statusCode, 201)
  t.equal(added.headers['access-control-allow-origin'], 'https://new.example')
  const removed = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    origin: 'https://shop.example',
    ip: '203.0.113.3',
    payload: review
  })
  t.equal(removed.json().code, 'origin_not_allowed')
})

t.test('an empty list is allowed and closes the storefront to every origin', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const res = await putOrigins(app, tenant.key, tenant.storeId, [])
  t.equal(res.statusCode, 200)
  t.same(res.json(), { origins: [] })
  const sf = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: 'https://shop.example', payload: review })
  t.equal(sf.statusCode, 403)
  t.equal(sf.json().code, 'origin_not_allowed')
})

t.test('origin_not_allowed names the origin and says where to add it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: 'https://x.example', payload: review })
  t.equal(res.statusCode, 403)
  const { message } = res.json()
  t.match(message, /^Origin https:\/\/x\.example is not allowed for this store\./)
  t.match(message, 'admin application (Stores → Allowed origins)')
  t.match(message, `PUT /v1/account/stores/${tenant.storeId}/origins`)
  t.match(message, 'npm run cli -- store set-origins')
})

t.test('the origins routes are in the OpenAPI document with their request body', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const path = doc.paths['/v1/account/stores/{id}/origins']
  t.ok(path?.get?.summary && path?.put?.summary)
  const body = path.put.requestBody.content['application/json'].schema
  t.match(body, { properties: { origins: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 300 } } } })
  t.ok(path.put.responses['403'] && path.put.responses['404'])
})

t.test('origin_not_allowed without an Origin header says the header is missing and where origins are managed', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: null, payload: review })
  t.equal(res.json().code, 'origin_not_allowed')
  t.match(res.json().message, /^This storefront call sent no Origin header.*Allowed origins are managed in the admin application/)
})

t.test('a CORS preflight from a newly added origin is answered within seconds of the change', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const origin = `https://new-${tenant.storeId.slice(4, 12).toLowerCase()}.example`
  const preflight = () =>
    app.inject({
      method: 'OPTIONS',
      url: '/v1/reviews',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-store-env-id' }
    })
  t.notOk((await preflight()).headers['access-control-allow-origin'], 'refused before the change')
  t.equal((await putOrigins(app, tenant.key, tenant.storeId, ['https://shop.example', origin])).statusCode, 200)
  await new Promise((resolve) => setTimeout(resolve, 5_100))
  t.equal((await preflight()).headers['access-control-allow-origin'], origin)
})
