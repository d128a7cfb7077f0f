import t from 'tap'
import { build, call, probeRoutes } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

t.test('HEAD is a read: a viewer key may HEAD what it may GET', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const res = await call(app, { method: 'HEAD', url: '/v1/reviews/probe', key: viewer.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})

t.test('HEAD goes through the same pipeline as GET: no key, no answer', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'HEAD', url: '/v1/reviews/probe', store: tenant.storeId })
  t.equal(res.statusCode, 401)
})
