import t from 'tap'
import { decodeJwt } from 'jose'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import { addMember } from '../factories.js'
import { connected } from './oauth-helper.js'

/*
 * docs/contract/tenancy-and-roles.md#org-level-authority: org-level authority stays with org-level credentials. An
 * OAuth access token is bound to chosen stores and a person; letting it mint keys or change who belongs to the
 * organization would outlive the connection. Every connection below is the owner's, with role admin and scope `write`:
 * the widest a token gets.
 */
const WIDEST = { role: 'admin', scope: 'write offline_access' }

function count (app: FastifyInstance, table: string, orgId: string) {
  return app.db(table).where({ org_id: orgId }).count<Array<{ n: number }>>({ n: '*' }).then(([r]) => Number(r.n))
}

t.test('an OAuth access token cannot create an API key: 403 credential_not_allowed and no key made', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const before = await count(app, 'api_keys', tenant.orgId)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tokens.access_token,
    store: tenant.storeId,
    payload: { name: 'forever', role: 'admin', scopes: ['write'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'credential_not_allowed')
  t.equal(await count(app, 'api_keys', tenant.orgId), before)
})

t.test('an OAuth access token cannot revoke an API key: 403 credential_not_allowed and the key still works', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const [key] = await app.db('api_keys').where({ org_id: tenant.orgId }).select('id')
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/api-keys/${key.id as string}`,
    key: tokens.access_token,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'credential_not_allowed')
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, store: tenant.storeId })).statusCode, 200)
})

t.test('an OAuth access token with api-keys read access may list the keys, never their secrets', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.equal(res.json().data.length, 1)
  t.notOk(res.body.includes(tenant.key))
})

t.test('an OAuth access token cannot remove a member: 403 credential_not_allowed and the member stays', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const editor = await addMember(app, tenant, 'editor')
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/account/members/${editor.id}`,
    key: tokens.access_token,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'credential_not_allowed')
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: editor.id })).length, 1)
})

t.test('an OAuth access token cannot register an OAuth client: 403 credential_not_allowed and none registered', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tokens.access_token,
    store: tenant.storeId,
    payload: { name: 'Mine', redirectUris: ['https://zapier.example/return'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'credential_not_allowed')
  t.equal(await count(app, 'oauth_clients', tenant.orgId), 0)
})

t.test('an OAuth access token still revokes its own connection, and nothing it could do survives that', async (t) => {
  const { app, tokens, tenant } = await connected(t, WIDEST)
  const grantId = decodeJwt(tokens.access_token).grant_id as string
  const keysBefore = await count(app, 'api_keys', tenant.orgId)
  await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tokens.access_token,
    store: tenant.storeId,
    payload: { name: 'forever', role: 'admin', scopes: ['write'] }
  })
  const revoked = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantId}`,
    key: tokens.access_token,
    store: tenant.storeId
  })
  t.equal(revoked.statusCode, 204)
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode, 401)
  t.equal(await count(app, 'api_keys', tenant.orgId), keysBefore, 'no key outlives the connection')
})
