import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { decodeJwt } from 'jose'
import { call } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { owner } from '../partners/support.js'
import { connect, csrfOf, makeClient, openConsent, REDIRECT_URI, serve } from './oauth-helper.js'

/** docs/contract/oauth.md#consent: what the consent step refuses of a posted choice, and what it then leaves behind. */

let served: ReturnType<typeof serve> | undefined
/** One listening app for the file (each test makes its own tenants and client). */
function app () {
  served ??= serve(t)
  return served
}

interface Choice {
  org?: string
  stores?: string[]
  role?: string
  person?: Tenant['owner']
  client?: { id: string, secret: string | null }
}

/**
 * Posts `choice` on the consent page the tenant's owner (or `person`) reached for `client` (default: a fresh
 * operator-registered one); by default the tenant's organization, its store and the editor role.
 */
async function consent (tenant: Tenant, choice: Choice) {
  const { app: server, base } = await app()
  const client = choice.client ?? await makeClient(server)
  const { page, browser } = await openConsent({ base, client, person: choice.person ?? tenant.owner })
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: {
      _csrf: csrfOf(page.text),
      org: choice.org ?? tenant.orgId,
      stores: choice.stores ?? [tenant.storeId],
      role: choice.role ?? 'editor'
    }
  })
  return { ...done, client }
}

async function leftBehind (server: FastifyInstance, clientId: string, orgId: string) {
  const grants = await server.db('oauth_grants').where({ client_id: clientId }).select('id')
  const audited = await server.db('audit_log').where({ org_id: orgId, action: 'oauth.connection_created' }).select('id')
  return { grants: grants.length, audited: audited.length }
}

t.test('a consent choosing one of the person\'s stores and one of another organization\'s is refused, with no grant and no audit entry', async (t) => {
  const { app: server } = await app()
  const tenant = await makeTenant(server)
  const other = await makeTenant(server)
  const done = await consent(tenant, { stores: [tenant.storeId, other.storeId] })
  t.equal(done.status, 400)
  t.match(done.text, 'Choose store environments of the chosen organization.')
  t.notOk(done.location?.startsWith(REDIRECT_URI), 'no code goes to the client')
  t.same(await leftBehind(server, done.client.id, tenant.orgId), { grants: 0, audited: 0 })
})

t.test('a consent naming an organization the person does not belong to is refused', async (t) => {
  const { app: server } = await app()
  const tenant = await makeTenant(server)
  const other = await makeTenant(server)
  const done = await consent(tenant, { org: other.orgId, stores: [other.storeId] })
  t.equal(done.status, 400)
  t.match(done.text, 'Choose an organization you belong to.')
  t.same(await leftBehind(server, done.client.id, other.orgId), { grants: 0, audited: 0 })
})

t.test('a consent choosing no store is refused', async (t) => {
  const { app: server } = await app()
  const tenant = await makeTenant(server)
  const done = await consent(tenant, { stores: [] })
  t.equal(done.status, 400)
  t.match(done.text, 'Choose at least one store environment.')
  t.same(await leftBehind(server, done.client.id, tenant.orgId), { grants: 0, audited: 0 })
})

t.test('a consent granting a role above the person\'s own, or owner, is refused', async (t) => {
  const { app: server } = await app()
  const tenant = await makeTenant(server)
  const editor = await addMember(server, tenant, 'editor')
  const above = await consent(tenant, { person: editor, role: 'admin' })
  t.equal(above.status, 400)
  t.match(above.text, 'Choose a role that is not above your own.')
  const owner = await consent(tenant, { role: 'owner' })
  t.equal(owner.status, 400, 'owner authority is never delegated')
  t.match(owner.text, 'Choose a role that is not above your own.')
  t.same(await leftBehind(server, above.client.id, tenant.orgId), { grants: 0, audited: 0 })
  t.same(await leftBehind(server, owner.client.id, tenant.orgId), { grants: 0, audited: 0 })
})

t.test('the consent page offers the roles up to the person\'s highest membership, highest first, never owner', async (t) => {
  const { app: server, base } = await app()
  const tenant = await makeTenant(server)
  const editor = await addMember(server, tenant, 'editor')
  const client = await makeClient(server)
  const roles = async (person: Tenant['owner']) => {
    const { page } = await openConsent({ base, client, person })
    return [...page.text.matchAll(/<option value="([^"]+)">/g)].map((m) => m[1])
  }
  t.same(await roles(tenant.owner), ['admin', 'editor', 'viewer'])
  t.same(await roles(editor), ['editor', 'viewer'])
  // Owner of another organization, listed before the one they edit in: the highest membership counts.
  const other = await makeTenant(server)
  await server.db('organizations').where({ id: other.orgId }).update({ name: 'Aaa first' })
  await server.services.bootstrap.addMember(other.orgId, editor.email, 'owner')
  t.same(await roles(editor), ['admin', 'editor', 'viewer'])
})

t.test('a consent names the organization that registered the client when the person chose another of theirs', async (t) => {
  const { app: server } = await app()
  const registering = await makeTenant(server)
  const other = await makeTenant(server)
  await server.services.bootstrap.addMember(other.orgId, registering.owner.email, 'owner')
  const payload = { name: 'Team Zaps', redirectUris: [REDIRECT_URI] }
  const created = await call(server, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: registering.key,
    store: registering.storeId,
    payload
  })
  const client = { id: created.json().clientId as string, secret: created.json().clientSecret as string }
  const done = await consent(registering, { org: other.orgId, stores: [other.storeId], client })
  t.equal(done.status, 403)
  const name = (await server.db('organizations').where({ id: registering.orgId }).first('name')).name
  t.match(done.text, `Team Zaps was registered by ${name}; only its members can connect it, to that organization.`)
  t.same(await leftBehind(server, client.id, other.orgId), { grants: 0, audited: 0 })
})

t.test('a consent for a client removed while its page was open is refused, not failed', async (t) => {
  const { app: server, base } = await app()
  const tenant = await makeTenant(server)
  const client = await makeClient(server)
  const { page, browser } = await openConsent({ base, client, person: tenant.owner })
  await server.db('oauth_clients').where({ id: client.id }).delete()
  const form = { _csrf: csrfOf(page.text), org: tenant.orgId, stores: [tenant.storeId], role: 'editor' }
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), { form })
  t.equal(done.status, 400)
  t.match(done.text, 'This application is not registered.')
  t.same(await leftBehind(server, client.id, tenant.orgId), { grants: 0, audited: 0 })
})

t.test('an agency member is offered a client\'s store, named with the client, and may connect it', async (t) => {
  const { app: server, base } = await app()
  const client = await makeTenant(server)
  const agency = await makeTenant(server)
  const payload = { partnerOrgId: agency.orgId, role: 'editor' }
  const granted = await server.injectAs(owner(client), { method: 'POST', url: '/v1/orgs/current/partners', payload })
  t.equal(granted.statusCode, 201)
  const clientName = (await server.db('organizations').where({ id: client.orgId }).first('name')).name
  const { page } = await openConsent({ base, client: await makeClient(server), person: agency.owner })
  t.match(page.text, `(client: ${clientName})`)
  const oauthClient = await makeClient(server)
  const { tokens } = await connect({
    base,
    client: oauthClient,
    person: agency.owner,
    org: agency.orgId,
    stores: [client.storeId],
    role: 'editor'
  })
  t.equal((await call(server, { method: 'GET', url: '/v1/reviews', key: tokens.access_token, store: client.storeId })).statusCode, 200)
})

t.test('a consent grants the OpenID and API scopes asked for, and is audited once with client, role, scopes and stores', async (t) => {
  const { app: server, base } = await app()
  const tenant = await makeTenant(server)
  const client = await makeClient(server)
  const scope = 'openid offline_access reviews:read products:read'
  const { tokens } = await connect({
    base,
    client,
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId, tenant.storeId],
    role: 'viewer',
    scope
  })
  t.ok(tokens.refresh_token, 'offline_access was granted')
  t.ok(tokens.id_token, 'openid was granted')
  for (const resource of ['reviews', 'products']) {
    const res = await call(server, { method: 'GET', url: `/v1/${resource}`, key: tokens.access_token, store: tenant.storeId })
    t.equal(res.statusCode, 200, `${resource}:read`)
  }
  const grantId = decodeJwt(tokens.access_token).grant_id
  const log = await call(server, { method: 'GET', url: '/v1/account/audit-log', key: tenant.key, store: tenant.storeId })
  const created = log.json().data.filter((e: { action: string }) => e.action === 'oauth.connection_created')
  t.match(created, [{
    actor: `person:${tenant.owner.id}`,
    subject: `oauth:${grantId}`,
    details: { clientId: client.id, role: 'viewer', scopes: ['reviews:read', 'products:read'], storeIds: [tenant.storeId] }
  }])
  t.equal(created.length, 1)
})
