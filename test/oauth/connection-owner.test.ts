import t from 'tap'
import { call } from '../helper.js'
import { makeKey } from '../factories.js'
import { connected } from './oauth-helper.js'
import { editorConnected, editorConnection, grantOf, stillWorks } from './editor-connection.js'

/*
 * Revoking another person's connection needs admin or owner; an editor may revoke their own
 * (docs/contract/tenancy-and-roles.md#roles and docs/contract/oauth.md#grants).
 */

t.test('an editor key cannot revoke the owner\'s connection: 403 role_forbidden and it keeps working', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const editor = await makeKey(app, tenant, 'editor')
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantOf(tokens.access_token)}`,
    key: editor.secret,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('an editor\'s OAuth token cannot revoke another person\'s connection', async (t) => {
  const { app, base, client, tokens, tenant } = await connected(t)
  const { accessToken } = await editorConnection(app, base, tenant, client)
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantOf(tokens.access_token)}`,
    key: accessToken,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('an editor\'s OAuth token revokes the editor\'s own connection', async (t) => {
  const { app, tenant, accessToken } = await editorConnected(t)
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantOf(accessToken)}`,
    key: accessToken,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 204)
  t.notOk(await stillWorks(app, tenant, accessToken))
})

t.test('an admin key revokes any person\'s connection', async (t) => {
  const { app, tenant, accessToken } = await editorConnected(t)
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantOf(accessToken)}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 204)
  t.notOk(await stillWorks(app, tenant, accessToken))
})
