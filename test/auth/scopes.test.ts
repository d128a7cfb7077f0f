import t from 'tap'
import { build, call, probeRoutes, errorBody } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

const routes = probeRoutes(['reviews', 'products'])

async function setup (t: Parameters<typeof build>[0], scopes: string[], role: 'admin' | 'editor' | 'viewer' = 'editor') {
  const app = await build(t, { routes })
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, role, scopes)
  const send = async (method: 'GET' | 'POST', resource: string) => {
    const res = await call(app, { method, url: `/v1/${resource}/probe`, key: key.secret, store: tenant.storeId })
    return res.statusCode === 200 ? 200 : `${res.statusCode} ${res.json().code}`
  }
  return { app, tenant, key, send }
}

t.test('a key without scopes is unrestricted within its role', async (t) => {
  const { send } = await setup(t, [])
  t.equal(await send('GET', 'reviews'), 200)
  t.equal(await send('POST', 'reviews'), 200)
  t.equal(await send('POST', 'products'), 200)
})

t.test('a "read" key reads every resource and writes none', async (t) => {
  const { send } = await setup(t, ['read'])
  t.equal(await send('GET', 'reviews'), 200)
  t.equal(await send('GET', 'products'), 200)
  t.equal(await send('POST', 'reviews'), '403 insufficient_scope')
})

t.test('a "write" key also reads, since write implies read', async (t) => {
  const { send } = await setup(t, ['write'])
  t.equal(await send('GET', 'products'), 200)
  t.equal(await send('POST', 'products'), 200)
})

t.test('a "reviews:read" key reads reviews only', async (t) => {
  const { send } = await setup(t, ['reviews:read'])
  t.equal(await send('GET', 'reviews'), 200)
  t.equal(await send('POST', 'reviews'), '403 insufficient_scope')
  t.equal(await send('GET', 'products'), '403 insufficient_scope')
})

t.test('a "reviews:write" key reads and writes reviews and nothing else', async (t) => {
  const { send } = await setup(t, ['reviews:write'])
  t.equal(await send('GET', 'reviews'), 200)
  t.equal(await send('POST', 'reviews'), 200)
  t.equal(await send('GET', 'products'), '403 insufficient_scope')
})

t.test('scopes add up: "reviews:write" with "products:read"', async (t) => {
  const { send } = await setup(t, ['reviews:write', 'products:read'])
  t.equal(await send('POST', 'reviews'), 200)
  t.equal(await send('GET', 'products'), 200)
  t.equal(await send('POST', 'products'), '403 insufficient_scope')
})

t.test('a write scope never widens a viewer role', async (t) => {
  const { send } = await setup(t, ['write'], 'viewer')
  t.equal(await send('POST', 'reviews'), '403 role_read_only')
})

t.test('a permissive role never bypasses scopes', async (t) => {
  const { send } = await setup(t, ['reviews:read'], 'admin')
  t.equal(await send('POST', 'reviews'), '403 insufficient_scope')
})

t.test('GET /account/stores answers any valid key whatever its scopes', async (t) => {
  const { app, tenant, key } = await setup(t, ['reviews:read'])
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: key.secret })
  t.equal(res.statusCode, 200)
  t.same(res.json().data.map((s: { id: string }) => s.id), [tenant.storeId])
})

t.test('the /account/stores exemption covers that route only, not the rest of account', async (t) => {
  const { app, tenant, key } = await setup(t, ['reviews:read'])
  const res = await call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
})

t.test('a route opened by any of several scopes lets in a key holding one of them, and its refusal names them all', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews'], { scopesOf: ['reviews', 'products', 'orders'] }) })
  const tenant = await makeTenant(app)
  const holder = await makeKey(app, tenant, 'editor', ['products:read'])
  const held = await call(app, { method: 'GET', url: '/v1/reviews/probe', key: holder.secret, store: tenant.storeId })
  t.equal(held.statusCode, 200)
  const other = await makeKey(app, tenant, 'editor', ['faqs:read'])
  const refused = await call(app, { method: 'GET', url: '/v1/reviews/probe', key: other.secret, store: tenant.storeId })
  t.equal(refused.statusCode, 403)
  t.same(errorBody(refused), {
    code: 'insufficient_scope',
    message: 'The credential\'s scopes do not allow read on reviews (or products, orders)'
  })
})
