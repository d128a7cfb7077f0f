import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import * as oidc from 'openid-client'
import { decodeJwt } from 'jose'
import { call } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { Agent } from '../admin/agent.js'
import { connect, makeClient, serve } from './oauth-helper.js'

/** docs/contract/oauth.md#grants: removing a teammate ends their connections for good. */

async function teammateConnected (t: Test) {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const member = await addMember(app, tenant, 'admin')
  const client = await makeClient(app)
  const flow = await connect({ base, client, person: member, org: tenant.orgId, stores: [tenant.storeId], role: 'editor' })
  return { app, base, tenant, member, client, ...flow, grantId: decodeJwt(flow.tokens.access_token).grant_id as string }
}

function removeMember (app: FastifyInstance, tenant: Tenant, personId: string) {
  return call(app, { method: 'DELETE', url: `/v1/account/members/${personId}`, key: tenant.key, store: tenant.storeId })
}

async function refreshError (config: oidc.Configuration, refreshToken: string) {
  const err = await oidc.refreshTokenGrant(config, refreshToken).catch((e: unknown) => e)
  return err instanceof oidc.ResponseBodyError ? err.error : `no error: ${JSON.stringify(err)}`
}

t.test('after a teammate is removed their refresh token no longer rotates', async (t) => {
  const { app, tenant, member, config, tokens } = await teammateConnected(t)
  t.equal((await removeMember(app, tenant, member.id)).statusCode, 204)
  t.equal(await refreshError(config, tokens.refresh_token!), 'invalid_grant')
})

t.test('after a teammate is removed their connection is no longer listed', async (t) => {
  const { app, tenant, member, grantId } = await teammateConnected(t)
  const before = await call(app, { method: 'GET', url: '/v1/connectors/connections', key: tenant.key, store: tenant.storeId })
  t.same(before.json().data.map((c: { id: string }) => c.id), [grantId])
  await removeMember(app, tenant, member.id)
  const after = await call(app, { method: 'GET', url: '/v1/connectors/connections', key: tenant.key, store: tenant.storeId })
  t.same(after.json().data, [])
})

t.test('re-adding a removed teammate brings neither their old access token nor their refresh token back', async (t) => {
  const { app, tenant, member, config, tokens } = await teammateConnected(t)
  await removeMember(app, tenant, member.id)
  await app.services.bootstrap.addMember(tenant.orgId, member.email, 'admin')
  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(api.statusCode, 401)
  t.equal(api.json().code, 'invalid_credentials')
  t.equal(await refreshError(config, tokens.refresh_token!), 'invalid_grant')
})

t.test('removing a teammate records each ended connection in the audit log', async (t) => {
  const { app, tenant, member, grantId } = await teammateConnected(t)
  await removeMember(app, tenant, member.id)
  const entries = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'oauth.connection_revoked' }).select('subject', 'details')
  t.equal(entries.length, 1)
  t.equal(entries[0].subject, `oauth:${grantId}`)
  t.match(JSON.parse(entries[0].details), { reason: 'member_removed', personId: member.id })
})

t.test('removing a teammate in the admin application ends their connections too', async (t) => {
  const { app, tenant, member, config, tokens } = await teammateConnected(t)
  const owner = new Agent(app)
  await owner.signIn(tenant.owner.email, tenant.owner.password)
  await owner.get(`/admin/members/${member.id}/remove`)
  t.equal((await owner.post(`/admin/members/${member.id}/remove`)).statusCode, 303)
  t.equal(await refreshError(config, tokens.refresh_token!), 'invalid_grant')
  await app.services.bootstrap.addMember(tenant.orgId, member.email, 'admin')
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode, 401)
})

t.test('removing a teammate leaves their connections to other organizations alone', async (t) => {
  const { app, base, tenant, member, client } = await teammateConnected(t)
  const other = await makeTenant(app)
  await app.services.bootstrap.addMember(other.orgId, member.email, 'editor')
  const elsewhere = await connect({ base, client, person: member, org: other.orgId, stores: [other.storeId], role: 'editor' })
  await removeMember(app, tenant, member.id)
  const refreshed = await oidc.refreshTokenGrant(elsewhere.config, elsewhere.tokens.refresh_token!)
  t.equal(refreshed.store_env_id, other.storeId)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/account/stores', key: refreshed.access_token, store: other.storeId })).statusCode,
    200
  )
})
