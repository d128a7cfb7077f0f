import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'

t.test('a store-scoped call without x-store-env-id gets 400 store_env_required', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'store_env_required')
})

t.test('a blank x-store-env-id counts as missing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, headers: { 'x-store-env-id': '  ' } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'store_env_required')
})

t.test('an unknown store environment gets 404 store_env_not_found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: 'env_doesnotexist' })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('another organization\'s store environment gets 404 store_env_not_found', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: mine.key, store: theirs.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('any store environment of the key\'s own organization is accepted', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: second })
  t.equal(res.statusCode, 200)
})

t.test('GET /account/stores needs no store header', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal(res.statusCode, 200)
  t.same(res.json().data.map((s: { id: string }) => s.id), [tenant.storeId])
})
