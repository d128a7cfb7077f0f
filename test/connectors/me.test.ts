import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeStore, makeTenant } from '../factories.js'

t.test('/connectors/me names the organization, the store and the key\'s authority', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor', ['orders:read', 'products:write'])
  const res = await call(app, { method: 'GET', url: '/v1/connectors/me', key: key.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const org = await app.db('organizations').where({ id: tenant.orgId }).first()
  t.same(res.json(), {
    organization: { id: tenant.orgId, name: org.name },
    storeEnv: { id: tenant.storeId, name: 'Main store', plan: 'growth' },
    credential: { type: 'api_key', role: 'editor', scopes: ['orders:read', 'products:write'], person: null }
  })
})

t.test('/connectors/me answers for the store in the header', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant, { plan: 'free' })
  const res = await call(app, { method: 'GET', url: '/v1/connectors/me', key: tenant.key, store: second })
  t.match(res.json().storeEnv, { id: second, plan: 'free' })
})

t.test('/connectors/me refuses another organization\'s store', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/connectors/me', key: other.key, store: tenant.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('/connectors/me needs a store environment', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/connectors/me', key: tenant.key })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'store_env_required')
})

t.test('/connectors/me with a revoked key is 401', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  const res = await call(app, { method: 'GET', url: '/v1/connectors/me', key: key.secret, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})
