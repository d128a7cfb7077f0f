import t from 'tap'
import { build, call, probeRoutes } from '../helper.js'
import { asPerson, makeStore, makeTenant } from '../factories.js'

t.test('a lapsed store gets 403 subscription_expired on store-scoped calls', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app, { status: 'lapsed' })
  for (
    const [method, url] of [['GET', '/v1/reviews/probe'], ['POST', '/v1/reviews/probe'], ['GET', '/v1/api-keys'], [
      'GET',
      '/v1/account/members'
    ]] as const
  ) {
    const res = await call(app, { method, url, key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().code, 'subscription_expired', `${method} ${url}`)
  }
})

t.test('GET /account/stores still answers for a lapsed store and shows the lapse', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.equal(res.json().data[0].subscription.status, 'lapsed')
})

t.test('billing reads are served for a lapsed store', async (t) => {
  const app = await build(t, { routes: probeRoutes(['billing']) })
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const res = await call(app, { method: 'GET', url: '/v1/billing/probe', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})

t.test('billing writes are refused for a lapsed store, even the owner\'s: only its reads are served', async (t) => {
  const app = await build(t, { routes: probeRoutes(['billing']) })
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const res = await asPerson(app, tenant, { id: tenant.owner.id }, { method: 'POST', url: '/v1/billing/probe', store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'subscription_expired')
})

t.test('past_due and trialing stores are still served', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  for (const status of ['past_due', 'trialing'] as const) {
    const tenant = await makeTenant(app, { status })
    const res = await call(app, { method: 'POST', url: '/v1/reviews/probe', key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 200, status)
  }
})

t.test('one store lapsing does not block the organization\'s other stores', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const other = await makeStore(app, tenant)
  await app.services.bootstrap.setPlan({ store: other, plan: 'growth', status: 'lapsed' })
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: tenant.key, store: other })).json().code, 'subscription_expired')
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: tenant.key, store: tenant.storeId })).statusCode, 200)
})
