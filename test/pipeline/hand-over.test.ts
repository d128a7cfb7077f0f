import t from 'tap'
import { build, call, probeRoutes, statementsOf } from '../helper.js'
import { makeTenant } from '../factories.js'
import { owner, person } from '../partners/support.js'

t.test('a credential handed over is served without a credential lookup, and counted in its own budget', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const lookups = statementsOf(t, app, /api_keys|memberships/)
  const first = await app.injectAs(owner(tenant), {
    method: 'GET',
    url: '/v1/reviews/probe',
    headers: { 'x-store-env-id': tenant.storeId }
  })
  t.equal(first.statusCode, 200)
  t.same(lookups, [], 'neither a key nor a membership is read')
  const second = await app.injectAs(owner(tenant), {
    method: 'GET',
    url: '/v1/reviews/probe',
    headers: { 'x-store-env-id': tenant.storeId }
  })
  t.equal(
    Number(second.headers['ratelimit-remaining']),
    Number(first.headers['ratelimit-remaining']) - 1,
    'the same budget, spent once per request'
  )
  const byKey = await call(app, { method: 'GET', url: '/v1/reviews/probe', key: tenant.key, store: tenant.storeId })
  t.equal(
    Number(byKey.headers['ratelimit-remaining']),
    Number(first.headers['ratelimit-remaining']),
    'the organization\'s key has a budget of its own'
  )
})

t.test('a credential handed over still goes through the store and access steps', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const viewer = person(tenant.orgId, tenant.owner.id, 'viewer')
  const write = await app.injectAs(viewer, { method: 'POST', url: '/v1/reviews/probe', headers: { 'x-store-env-id': tenant.storeId } })
  t.equal(write.json().code, 'role_read_only')
  const elsewhere = await app.injectAs(owner(tenant), {
    method: 'GET',
    url: '/v1/reviews/probe',
    headers: { 'x-store-env-id': other.storeId }
  })
  t.equal(elsewhere.json().code, 'store_env_not_found')
})

t.test('an injected request without a live hand-over identifies its own credential', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const nonce = '00000000-0000-4000-8000-000000000000'
  const res = await app.inject({
    method: 'GET',
    url: '/v1/reviews/probe',
    headers: { 'x-evidence-hub-hand-over': nonce, authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
  })
  t.equal(res.statusCode, 200, 'its key is read as for any request')
})
