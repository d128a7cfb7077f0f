import t from 'tap'
import { App, appTester, serve } from './harness.js'
import { makeKey, makeTenant } from '../../../test/factories.js'

t.test('the connection test answers /connectors/me and labels the connection with the organization and store', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const me = await appTester(App.authentication.test, { authData: { api_key: tenant.key, store_env_id: tenant.storeId } })
  t.match(me, { organization: { id: tenant.orgId }, storeEnv: { id: tenant.storeId, name: 'Main store' }, credential: { type: 'api_key', role: 'admin' } })
  const label = await appTester(App.authentication.connectionLabel, { authData: {}, inputData: me })
  t.equal(label, `${me.organization.name} – Main store`)
})

t.test('the connection test fails for a revoked key', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  await app.inject({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId } })
  await t.rejects(appTester(App.authentication.test, { authData: { api_key: key.secret, store_env_id: tenant.storeId } }), { name: 'ExpiredAuthError' })
})
