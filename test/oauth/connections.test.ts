import t from 'tap'
import { decodeJwt } from 'jose'
import { call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { connected } from './oauth-helper.js'

t.test('the connection list shows client, person, role, scopes, stores and last use', async (t) => {
  const { app, tokens, tenant } = await connected(t, { scope: 'reviews:read offline_access' })
  await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  const res = await call(app, { method: 'GET', url: '/v1/connectors/connections', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const [connection] = res.json().data
  t.equal(connection.id, decodeJwt(tokens.access_token).grant_id)
  t.equal(connection.client.name, 'Automation Platform')
  t.equal(connection.person.email, tenant.owner.email)
  t.equal(connection.role, 'editor')
  t.same(connection.scopes, ['reviews:read'])
  t.same(connection.storeIds, [tenant.storeId])
  t.ok(connection.lastUsedAt, 'last use is recorded')
})

t.test('one organization cannot list or revoke another organization\'s connections', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const other = await makeTenant(app)
  const grantId = decodeJwt(tokens.access_token).grant_id as string
  const list = await call(app, { method: 'GET', url: '/v1/connectors/connections', key: other.key, store: other.storeId })
  t.same(list.json().data, [])
  const revoke = await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantId}`, key: other.key, store: other.storeId })
  t.equal(revoke.statusCode, 404)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode,
    200,
    'the token still works'
  )
})

t.test('revoking a connection twice answers 204 both times', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const grantId = decodeJwt(tokens.access_token).grant_id as string
  for (let i = 0; i < 2; i++) {
    t.equal(
      (await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantId}`, key: tenant.key, store: tenant.storeId }))
        .statusCode,
      204
    )
  }
  t.same((await call(app, { method: 'GET', url: '/v1/connectors/connections', key: tenant.key, store: tenant.storeId })).json().data, [])
})

t.test('an admin registers an OAuth client and sees its secret once; an editor cannot', async (t) => {
  const { build } = await import('../helper.js')
  const app = await build(t)
  const tenant = await makeTenant(app)
  const created = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'Zap', redirectUris: ['https://zapier.example/return'] }
  })
  t.equal(created.statusCode, 201, created.body)
  t.match(created.json().clientSecret, /^ocs_[0-9A-Za-z]{40}$/)
  const row = await app.db('oauth_clients').where({ id: created.json().clientId }).first()
  t.notOk(JSON.stringify(row).includes(created.json().clientSecret), 'only a hash is stored')
  const list = await call(app, { method: 'GET', url: '/v1/connectors/oauth-clients', key: tenant.key, store: tenant.storeId })
  const own = (body: { data: Array<{ id: string, registeredBy: string }> }) => body.data.filter((c) => c.registeredBy === 'organization')
  t.same(own(list.json()).map((c) => c.id), [created.json().clientId])
  t.notOk(list.body.includes(created.json().clientSecret))
  const other = await makeTenant(app)
  const otherList = (await call(app, { method: 'GET', url: '/v1/connectors/oauth-clients', key: other.key, store: other.storeId })).json()
  t.same(own(otherList), [], 'another organization does not see it')
  const editor = await makeKey(app, tenant, 'editor')
  const refused = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: editor.secret,
    store: tenant.storeId,
    payload: { name: 'Zap', redirectUris: ['https://zapier.example/return'] }
  })
  t.equal(refused.statusCode, 403)
  const bad = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'Zap', redirectUris: ['http://zapier.example/return'] }
  })
  t.equal(bad.statusCode, 400, 'plain http is refused outside loopback')
})
