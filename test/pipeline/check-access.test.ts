import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, onMysql, statementsOf } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

/** Probes of each gate the access step applies. */
async function gated (app: FastifyInstance) {
  const ok = async () => ({ ok: true })
  for (const method of ['GET', 'POST'] as const) {
    app.route({ method, url: '/v1/reviews/pro', config: { plan: 'pro' }, handler: ok })
    app.route({ method, url: '/v1/reviews/hooks', config: { feature: 'connector-hooks' }, handler: ok })
    app.route({ method, url: '/v1/reviews/exempt', config: { subscriptionExempt: true }, handler: ok })
    app.route({ method, url: '/v1/reviews/either', config: { resource: 'events', scopesOf: ['events', 'reviews'] }, handler: ok })
    app.route({ method, url: '/v1/reviews/owners', config: { minRole: 'owner' }, handler: ok })
  }
}

const codeOf = async (app: FastifyInstance, method: 'GET' | 'POST', url: string, key: string, store: string) => {
  const res = await call(app, { method, url, key, store })
  return res.statusCode === 200 ? 'served' : res.json().code
}

t.test('the refusals come in order: role, then subscription, then plan', async (t) => {
  const app = await build(t, { routes: gated })
  const lapsed = await makeTenant(app, { plan: 'growth', status: 'lapsed' })
  const viewer = await makeKey(app, lapsed, 'viewer')
  t.equal(
    await codeOf(app, 'POST', '/v1/reviews/pro', viewer.secret, lapsed.storeId),
    'role_read_only',
    'a viewer\'s write, before the lapse'
  )
  t.equal(await codeOf(app, 'GET', '/v1/reviews/pro', lapsed.key, lapsed.storeId), 'subscription_expired', 'the lapse, before the plan')
  await app.services.bootstrap.setPlan({ store: lapsed.storeId, plan: 'growth', status: 'active' })
  t.equal(await codeOf(app, 'GET', '/v1/reviews/pro', lapsed.key, lapsed.storeId), 'plan_required')
  await app.services.bootstrap.setPlan({ store: lapsed.storeId, plan: 'pro', status: 'active' })
  t.equal(await codeOf(app, 'GET', '/v1/reviews/pro', lapsed.key, lapsed.storeId), 'served')
})

t.test('a subscription-exempt route is served while the store has lapsed, other routes are not', async (t) => {
  const app = await build(t, { routes: gated })
  const tenant = await makeTenant(app, { status: 'lapsed' })
  t.equal(await codeOf(app, 'POST', '/v1/reviews/exempt', tenant.key, tenant.storeId), 'served')
  t.equal(await codeOf(app, 'POST', '/v1/reviews/pro', tenant.key, tenant.storeId), 'subscription_expired')
})

t.test('a route opened by several resources\' scopes takes a key scoped to any one of them', async (t) => {
  const app = await build(t, { routes: gated })
  const tenant = await makeTenant(app)
  const reviews = await makeKey(app, tenant, 'editor', ['reviews:read'])
  const products = await makeKey(app, tenant, 'editor', ['products:read'])
  t.equal(await codeOf(app, 'GET', '/v1/reviews/either', reviews.secret, tenant.storeId), 'served')
  t.equal(await codeOf(app, 'GET', '/v1/reviews/either', products.secret, tenant.storeId), 'insufficient_scope')
})

t.test('a route\'s least role refuses the roles below it, whatever the resource allows', async (t) => {
  const app = await build(t, { routes: gated })
  const tenant = await makeTenant(app)
  t.equal(await codeOf(app, 'GET', '/v1/reviews/owners', tenant.key, tenant.storeId), 'role_forbidden', 'an admin key')
})

t.test('a feature-gated route reads the store\'s overrides once, and again when an override changes them', async (t) => {
  const app = await build(t, { routes: gated })
  const tenant = await makeTenant(app, { plan: 'free' })
  t.equal(await codeOf(app, 'GET', '/v1/reviews/hooks', tenant.key, tenant.storeId), 'plan_required')
  const reads = statementsOf(t, app, /store_features/)
  t.equal(await codeOf(app, 'GET', '/v1/reviews/hooks', tenant.key, tenant.storeId), 'plan_required')
  if (onMysql) t.same(reads, [], 'kept under the store marker')
  else t.equal(reads.length, 1, 'no Redis: read on every request')
  await app.services.features.setOverride({ store: tenant.storeId, feature: 'connector-hooks', enabled: true })
  t.equal(await codeOf(app, 'GET', '/v1/reviews/hooks', tenant.key, tenant.storeId), 'served', 'the override is seen on the next request')
  t.equal(await codeOf(app, 'GET', '/v1/reviews/pro', tenant.key, tenant.storeId), 'plan_required', 'a plan-only route asks no override')
})

t.test('GET /features answers the overrides the access step keeps', async (t) => {
  const app = await build(t, { routes: gated })
  const tenant = await makeTenant(app, { plan: 'free' })
  await app.services.features.setOverride({ store: tenant.storeId, feature: 'connector-hooks', enabled: true })
  t.equal(await codeOf(app, 'GET', '/v1/reviews/hooks', tenant.key, tenant.storeId), 'served')
  const reads = statementsOf(t, app, /store_features/)
  const features = (await call(app, { method: 'GET', url: '/v1/features', key: tenant.key, store: tenant.storeId })).json().features
  t.match(features.find((f: { key: string }) => f.key === 'connector-hooks'), { enabled: true, source: 'override' })
  if (onMysql) t.same(reads, [], 'from memory, as the gate read them')
})
