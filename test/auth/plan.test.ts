import t from 'tap'
import { build, call, probeRoutes } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('a route that needs growth refuses a free store with 403 plan_required', async (t) => {
  const app = await build(t, { routes: probeRoutes(['outbound-webhooks'], { plan: 'growth' }) })
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/probe', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'plan_required')
  t.match(res.json().message, /growth/)
})

t.test('a route that needs growth serves growth and pro stores', async (t) => {
  const app = await build(t, { routes: probeRoutes(['outbound-webhooks'], { plan: 'growth' }) })
  for (const plan of ['growth', 'pro'] as const) {
    const tenant = await makeTenant(app, { plan })
    const res = await call(app, { method: 'POST', url: '/v1/outbound-webhooks/probe', key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 200, plan)
  }
})

t.test('a route that needs pro refuses a growth store', async (t) => {
  const app = await build(t, { routes: probeRoutes(['connectors'], { plan: 'pro' }) })
  const tenant = await makeTenant(app, { plan: 'growth' })
  const res = await call(app, { method: 'GET', url: '/v1/connectors/probe', key: tenant.key, store: tenant.storeId })
  t.equal(res.json().code, 'plan_required')
})

t.test('a route without a plan works on free', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await call(app, { method: 'GET', url: '/v1/reviews/probe', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})
