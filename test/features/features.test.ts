import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'
import { onlyJson, runCli } from '../cli/run-cli.js'
import { FEATURE_KEYS, type Feature } from '../../src/features.js'
import { PLANS } from '../../src/types.js'

/** A write that needs the feature: refused with plan_required before its (empty, so invalid) body is looked at. */
const GATED: Record<Feature, string> = { 'outbound-webhooks': '/v1/outbound-webhooks', 'connector-hooks': '/v1/connectors/hooks' }

async function gatedStatus (app: Awaited<ReturnType<typeof sharedApp>>, key: string, store: string, feature: Feature) {
  const res = await call(app, { method: 'POST', url: GATED[feature], key, store, payload: {} })
  return res.json().code === 'plan_required' ? 'refused' : 'served'
}

t.test('GET /features lists every plan-gated feature with what the store\'s plan gives, and the limits', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await call(app, { method: 'GET', url: '/v1/features', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { plan: 'free', subscriptionStatus: 'active', limits: { batchItems: 250, pageSize: 100 } })
  t.same(body.features.map((f: { key: string }) => f.key), FEATURE_KEYS)
  t.ok(body.features.every((f: { enabled: boolean, source: string }) => !f.enabled && f.source === 'plan'), 'nothing gated on free')
  t.same(body.limits.requestWindows, [{ seconds: 1, requests: 10 }, { seconds: 10, requests: 50 }, { seconds: 60, requests: 200 }])
})

t.test('the features list matches what the pipeline enforces, on every plan', async (t) => {
  const app = await sharedApp()
  for (const plan of PLANS) {
    const tenant = await makeTenant(app, { plan })
    const { features } = (await call(app, { method: 'GET', url: '/v1/features', key: tenant.key, store: tenant.storeId })).json()
    for (const feature of features as Array<{ key: Feature, enabled: boolean }>) {
      t.equal(
        await gatedStatus(app, tenant.key, tenant.storeId, feature.key),
        feature.enabled ? 'served' : 'refused',
        `${plan} ${feature.key}`
      )
    }
  }
})

t.test('an operator override grants a feature the plan lacks on the very next request, for that store only', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  const sibling = await makeStore(app, tenant, { plan: 'free' })
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'outbound-webhooks'), 'refused')
  const out = await app.services.features.setOverride({ store: tenant.storeId, feature: 'outbound-webhooks', enabled: true })
  t.same(out.feature, { key: 'outbound-webhooks', enabled: true, source: 'override' })
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'outbound-webhooks'), 'served')
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'connector-hooks'), 'refused', 'other features keep the plan\'s answer')
  t.equal(await gatedStatus(app, tenant.key, sibling, 'outbound-webhooks'), 'refused', 'another store of the organization keeps its plan')
  const listed = (await call(app, { method: 'GET', url: '/v1/features', key: tenant.key, store: tenant.storeId })).json().features
  t.match(listed.find((f: { key: string }) => f.key === 'outbound-webhooks'), { enabled: true, source: 'override', minPlan: 'growth' })
})

t.test('an operator override revokes a feature the plan gives, and going back to the plan default restores it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'pro' })
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'connector-hooks'), 'served')
  await app.services.features.setOverride({ store: tenant.storeId, feature: 'connector-hooks', enabled: false })
  const refused = await call(app, { method: 'POST', url: '/v1/connectors/hooks', key: tenant.key, store: tenant.storeId, payload: {} })
  t.equal(refused.statusCode, 403)
  t.match(refused.json(), { code: 'plan_required', message: /growth/ })
  await app.services.features.setOverride({ store: tenant.storeId, feature: 'connector-hooks', enabled: null })
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'connector-hooks'), 'served')
})

t.test('store set-feature --json prints the feature\'s new state and the next request sees it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await runCli(['store', 'set-feature', '--store', tenant.storeId, '--feature', 'outbound-webhooks', '--enabled', '--json'])
  t.equal(res.code, 0, res.stderr)
  t.same(onlyJson(res.stdout), {
    store: { id: tenant.storeId, plan: 'free' },
    feature: { key: 'outbound-webhooks', enabled: true, source: 'override' }
  })
  t.equal(await gatedStatus(app, tenant.key, tenant.storeId, 'outbound-webhooks'), 'served')
})

t.test('store set-feature refuses an unknown feature, an unknown store and an unclear choice', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const cases: Array<[string[], RegExp]> = [
    [['--store', tenant.storeId, '--feature', 'teleport', '--enabled'], /--feature must be one of outbound-webhooks, connector-hooks/],
    [['--store', 'env_nope', '--feature', 'outbound-webhooks', '--enabled'], /Store environment not found/],
    [['--store', tenant.storeId, '--feature', 'outbound-webhooks', '--enabled', '--disabled'], /exactly one of/],
    [['--store', tenant.storeId, '--feature', 'outbound-webhooks'], /exactly one of/]
  ]
  for (const [args, message] of cases) {
    const res = await runCli(['store', 'set-feature', ...args, '--json'])
    t.not(res.code, 0, args.join(' '))
    t.equal(res.stdout, '')
    t.match(res.stderr, message)
  }
  t.equal(await app.db('store_features').where({ store_env_id: tenant.storeId }).count({ n: '*' }).first().then((r) => Number(r!.n)), 0)
})

t.test('GET /features of another organization\'s store is store_env_not_found', async (t) => {
  const app = await sharedApp()
  const [a, b] = [await makeTenant(app), await makeTenant(app)]
  const res = await call(app, { method: 'GET', url: '/v1/features', key: a.key, store: b.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})
