import t from 'tap'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { connect, makeClient, serve } from './oauth-helper.js'

t.test('a client completes authorization code + PKCE through login and consent and calls the API with the token', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const { tokens } = await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: [tenant.storeId], role: 'editor' })
  t.ok(tokens.access_token)
  t.ok(tokens.refresh_token, 'offline_access gives a refresh token without prompt=consent')
  t.equal(tokens.store_env_id, tenant.storeId)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tokens.store_env_id as string })
  t.equal(res.statusCode, 200, res.body)
})
