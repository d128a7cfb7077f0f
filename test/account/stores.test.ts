import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('GET /account/stores shows each store\'s plan, subscription and allowed origins', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'pro', origins: ['https://a.example'] })
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    data: [{
      id: tenant.storeId,
      name: 'Main store',
      plan: 'pro',
      subscription: { status: 'active', currentPeriodEnd: String },
      allowedOrigins: ['https://a.example'],
      createdAt: String
    }],
    meta: { total: 1, page: 1, limit: 20, totalPages: 1 }
  })
})

t.test('a page limit above 100 is clamped and the envelope says so', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores?limit=500', key: tenant.key })
  t.equal(res.statusCode, 200)
  t.equal(res.json().meta.limit, 100)
})
