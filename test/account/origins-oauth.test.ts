import t from 'tap'
import { call } from '../helper.js'
import { makeStore } from '../factories.js'
import { connected } from '../oauth/oauth-helper.js'

/** Store settings are store-level: a token may change them only for a store its grant names. */

t.test('an OAuth token granted the store with the admin role and account:write may replace its origins', async (t) => {
  const { app, tokens, tenant } = await connected(t, { role: 'admin', scope: 'account:write' })
  const res = await call(app, {
    method: 'PUT',
    url: `/v1/account/stores/${tenant.storeId}/origins`,
    key: tokens.access_token,
    payload: { origins: ['https://zap.example'] }
  })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { origins: ['https://zap.example'] })
  const grant = await app.db('oauth_grants').where({ org_id: tenant.orgId }).first('id')
  const entry = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'store.origins_updated' }).first()
  t.equal(entry.actor, `oauth:${grant.id}`)
})

t.test('an OAuth token cannot read or change the origins of a store outside its grant', async (t) => {
  const { app, tokens, tenant } = await connected(t, { role: 'admin', scope: 'account:write' })
  const other = await makeStore(app, tenant, { origins: ['https://other.example'] })
  const put = await call(app, {
    method: 'PUT',
    url: `/v1/account/stores/${other}/origins`,
    key: tokens.access_token,
    payload: { origins: ['https://zap.example'] }
  })
  t.equal(put.statusCode, 404)
  t.equal(put.json().code, 'store_env_not_found')
  const get = await call(app, { method: 'GET', url: `/v1/account/stores/${other}/origins`, key: tokens.access_token })
  t.equal(get.json().code, 'store_env_not_found')
  t.same((await app.stores.find(other))!.allowedOrigins, ['https://other.example'])
})

t.test('an OAuth token with the editor role is refused with role_forbidden', async (t) => {
  const { app, tokens, tenant } = await connected(t, { role: 'editor', scope: 'account:write' })
  const res = await call(app, {
    method: 'PUT',
    url: `/v1/account/stores/${tenant.storeId}/origins`,
    key: tokens.access_token,
    payload: { origins: ['https://zap.example'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
})
