import t from 'tap'
import { decodeJwt } from 'jose'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import { addMember, makeKey, type Tenant } from '../factories.js'
import { Agent } from '../admin/agent.js'
import { connect, connected } from './oauth-helper.js'

/* Revoking another person's connection needs admin or owner; an editor may revoke their own (decisions.md 2, 10). */

function grantOf (accessToken: string): string {
  return decodeJwt(accessToken).grant_id as string
}

async function stillWorks (app: FastifyInstance, tenant: Tenant, accessToken: string): Promise<boolean> {
  return (await call(app, { method: 'GET', url: '/v1/account/stores', key: accessToken, store: tenant.storeId })).statusCode === 200
}

/** An editor of the tenant who connected the same client for themself. */
async function editorConnection (app: FastifyInstance, base: string, tenant: Tenant, client: { id: string, secret: string | null }) {
  const editor = await addMember(app, tenant, 'editor')
  const { tokens } = await connect({ base, client, person: editor, org: tenant.orgId, stores: [tenant.storeId], role: 'editor', scope: 'connectors:write offline_access' })
  return { editor, accessToken: tokens.access_token }
}

t.test('an editor key cannot revoke the owner\'s connection: 403 role_forbidden and it keeps working', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const editor = await makeKey(app, tenant, 'editor')
  const res = await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantOf(tokens.access_token)}`, key: editor.secret, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('an editor\'s OAuth token cannot revoke another person\'s connection', async (t) => {
  const { app, base, client, tokens, tenant } = await connected(t)
  const { accessToken } = await editorConnection(app, base, tenant, client)
  const res = await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantOf(tokens.access_token)}`, key: accessToken, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('an editor\'s OAuth token revokes the editor\'s own connection', async (t) => {
  const { app, base, client, tenant } = await connected(t)
  const { accessToken } = await editorConnection(app, base, tenant, client)
  const res = await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantOf(accessToken)}`, key: accessToken, store: tenant.storeId })
  t.equal(res.statusCode, 204)
  t.notOk(await stillWorks(app, tenant, accessToken))
})

t.test('an admin key revokes any person\'s connection', async (t) => {
  const { app, base, client, tenant } = await connected(t)
  const { accessToken } = await editorConnection(app, base, tenant, client)
  const res = await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantOf(accessToken)}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 204)
  t.notOk(await stillWorks(app, tenant, accessToken))
})

t.test('in the admin application an editor can neither open nor post the revocation of the owner\'s connection', async (t) => {
  const { app, base, client, tokens, tenant } = await connected(t)
  const { editor } = await editorConnection(app, base, tenant, client)
  const agent = new Agent(app)
  await agent.signIn(editor.email, editor.password)
  const page = await agent.get('/admin/connections')
  t.notMatch(page.body, `/admin/connections/${grantOf(tokens.access_token)}/revoke`, 'no revoke button on the owner\'s connection')
  t.equal((await agent.get(`/admin/connections/${grantOf(tokens.access_token)}/revoke`)).statusCode, 403)
  t.equal((await agent.post(`/admin/connections/${grantOf(tokens.access_token)}/revoke`)).statusCode, 403)
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('in the admin application an editor revokes their own connection', async (t) => {
  const { app, base, client, tenant } = await connected(t)
  const { editor, accessToken } = await editorConnection(app, base, tenant, client)
  const agent = new Agent(app)
  await agent.signIn(editor.email, editor.password)
  const page = await agent.get('/admin/connections')
  t.match(page.body, `/admin/connections/${grantOf(accessToken)}/revoke`, 'a revoke button on their own connection')
  await agent.get(`/admin/connections/${grantOf(accessToken)}/revoke`)
  t.equal((await agent.post(`/admin/connections/${grantOf(accessToken)}/revoke`)).statusCode, 303)
  t.notOk(await stillWorks(app, tenant, accessToken))
})
