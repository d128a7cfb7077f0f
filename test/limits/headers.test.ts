import t from 'tap'
import { build, call, manualClock, probeRoutes } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

t.test('every response under /v1 carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock, routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const scoped = await makeKey(app, tenant, 'editor', ['products:read'])
  const cases: Array<[string, Parameters<typeof call>[1]]> = [
    ['health', { method: 'GET', url: '/v1/health' }],
    ['openapi', { method: 'GET', url: '/v1/openapi.json' }],
    ['unknown route', { method: 'GET', url: '/v1/nothing-here', key: tenant.key, store: tenant.storeId }],
    ['unknown route without a key', { method: 'POST', url: '/v1/nothing-here' }],
    ['missing credentials', { method: 'GET', url: '/v1/api-keys', store: tenant.storeId }],
    ['invalid credentials', { method: 'GET', url: '/v1/api-keys', key: 'svc_nope', store: tenant.storeId }],
    ['store header missing', { method: 'GET', url: '/v1/api-keys', key: tenant.key }],
    ['store not found', { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: 'env_none' }],
    ['role read only', { method: 'POST', url: '/v1/reviews/probe', key: viewer.secret, store: tenant.storeId }],
    ['insufficient scope', { method: 'GET', url: '/v1/reviews/probe', key: scoped.secret, store: tenant.storeId }],
    ['validation error', { method: 'POST', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId, payload: {} }],
    ['not found', { method: 'GET', url: '/v1/api-keys/key_none', key: tenant.key, store: tenant.storeId }],
    ['success', { method: 'GET', url: '/v1/account/stores', key: tenant.key }]
  ]
  for (const [name, options] of cases) {
    clock.advance(60_000)
    const res = await call(app, options)
    for (const header of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
      t.match(res.headers[header], /^\d+$/, `${name} (${res.statusCode}) has ${header}`)
    }
  }
})

t.test('a 429 carries the headers too', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  for (let i = 0; i < 10; i++) await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal(res.statusCode, 429)
  t.equal(res.headers['ratelimit-remaining'], '0')
  t.ok(res.headers['retry-after'])
})
