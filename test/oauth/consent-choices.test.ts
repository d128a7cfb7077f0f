import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { csrfOf, makeClient, openConsent, REDIRECT_URI, serve } from './oauth-helper.js'

/** decisions.md section 10: what the consent step refuses of a posted choice, and what it then leaves behind. */

let served: ReturnType<typeof serve> | undefined
/** One listening app for the file (each test makes its own tenants and client). */
function app () {
  served ??= serve(t)
  return served
}

/**
 * Posts `choice` on the consent page the tenant's owner (or `person`) reached for a fresh client; by default the
 * tenant's organization, its store and the editor role.
 */
async function consent (tenant: Tenant, choice: { org?: string, stores?: string[], role?: string, person?: Tenant['owner'] }) {
  const { app: server, base } = await app()
  const client = await makeClient(server)
  const { page, browser } = await openConsent({ base, client, person: choice.person ?? tenant.owner })
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: { _csrf: csrfOf(page.text), org: choice.org ?? tenant.orgId, stores: choice.stores ?? [tenant.storeId], role: choice.role ?? 'editor' }
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
