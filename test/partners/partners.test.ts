import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { addMember, makeTenant } from '../factories.js'
import { as, owner, person } from './support.js'
import { connect, makeClient, openConsent, serve } from '../oauth/oauth-helper.js'

/** A client organization, an agency with a member of `memberRole`, and (unless `role` is null) a grant of `role`. */
async function setUp (
  app: FastifyInstance,
  role: 'admin' | 'editor' | 'viewer' | null,
  memberRole: 'owner' | 'admin' | 'editor' = 'admin'
) {
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const member = await addMember(app, agency, memberRole)
  const partner = person(agency.orgId, member.id, memberRole)
  if (role) {
    const granted = await as(app, owner(client), 'POST', '/orgs/current/partners', undefined, { partnerOrgId: agency.orgId, role })
    if (granted.statusCode !== 201) throw new Error(granted.body)
  }
  return { client, agency, member, partner }
}

t.test('an owner grants a partner a role, lists it, changes it and revokes it', async (t) => {
  const app = await sharedApp()
  const { client, agency } = await setUp(app, 'editor')
  const list = await as(app, owner(client), 'GET', '/orgs/current/partners')
  t.match(list.json(), { data: [{ partnerOrgId: agency.orgId, role: 'editor' }], meta: { total: 1 } })
  const changed = await as(app, owner(client), 'POST', '/orgs/current/partners', undefined, { partnerOrgId: agency.orgId, role: 'admin' })
  t.equal(changed.statusCode, 200)
  t.equal(changed.json().role, 'admin')
  t.equal((await as(app, owner(client), 'DELETE', `/orgs/current/partners/${agency.orgId}`)).statusCode, 204)
  t.equal((await as(app, owner(client), 'DELETE', `/orgs/current/partners/${agency.orgId}`)).statusCode, 404)
  const audit = (await call(app, { method: 'GET', url: '/v1/account/audit-log', key: client.key, store: client.storeId })).json()
  const actions = audit.data.map((e: { action: string }) => e.action).filter((action: string) => action.startsWith('partner.'))
  t.same(actions, ['partner.revoked', 'partner.role_changed', 'partner.granted'])
})

t.test('a role above admin, an unknown organization or the organization itself cannot be granted', async (t) => {
  const app = await sharedApp()
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const grant = (body: object) => as(app, owner(client), 'POST', '/orgs/current/partners', undefined, body)
  const asOwner = await grant({ partnerOrgId: agency.orgId, role: 'owner' })
  t.equal(asOwner.statusCode, 400)
  t.equal(asOwner.json().code, 'invalid_request')
  t.equal((await grant({ partnerOrgId: 'org_unknown', role: 'viewer' })).json().code, 'not_found')
  t.equal((await grant({ partnerOrgId: client.orgId, role: 'viewer' })).json().code, 'invalid_request')
  t.equal((await grant({ partnerOrgId: 'x'.repeat(41), role: 'viewer' })).json().code, 'invalid_request')
})

t.test('only an owner grants partners: an admin key and an admin person are refused', async (t) => {
  const app = await sharedApp()
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const admin = await addMember(app, client, 'admin')
  const body = { partnerOrgId: agency.orgId, role: 'viewer' }
  const byKey = await call(app, { method: 'POST', url: '/v1/orgs/current/partners', key: client.key, payload: body })
  t.equal(byKey.json().code, 'role_forbidden')
  const byAdmin = await as(app, person(client.orgId, admin.id, 'admin'), 'POST', '/orgs/current/partners', undefined, body)
  t.equal(byAdmin.json().code, 'role_forbidden')
})

t.test('without a grant a partner\'s person gets store_env_not_found on the client\'s store', async (t) => {
  const app = await sharedApp()
  const { client, partner } = await setUp(app, null)
  const res = await as(app, partner, 'GET', '/affiliates', client.storeId)
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('a partner\'s person acts with the lesser of their role and the grant', async (t) => {
  const app = await sharedApp()
  // Granted viewer, the agency's admin only reads.
  const viewer = await setUp(app, 'viewer', 'admin')
  t.equal((await as(app, viewer.partner, 'GET', '/affiliates', viewer.client.storeId)).statusCode, 200)
  t.equal((await as(app, viewer.partner, 'PUT', '/products', viewer.client.storeId, { products: [] })).json().code, 'role_read_only')
  // Granted admin, the agency's editor stays an editor: no audit log (admin only), but product writes.
  const editor = await setUp(app, 'admin', 'editor')
  t.equal((await as(app, editor.partner, 'GET', '/account/audit-log', editor.client.storeId)).json().code, 'role_forbidden')
  t.equal(
    (await as(app, editor.partner, 'PUT', '/products', editor.client.storeId, { products: [{ platformProductId: 'p1' }] })).statusCode,
    200
  )
  // Granted admin, the agency's owner acts as admin: the audit log, but no billing or org writes.
  const ownerOfAgency = await setUp(app, 'admin', 'owner')
  t.equal((await as(app, ownerOfAgency.partner, 'GET', '/account/audit-log', ownerOfAgency.client.storeId)).statusCode, 200)
})

t.test('what a partner writes is the client store\'s, seen by the client\'s own key', async (t) => {
  const app = await sharedApp()
  const { client, partner } = await setUp(app, 'admin')
  const created = await as(app, partner, 'POST', '/affiliates', client.storeId, { name: 'Ann', code: 'ANN', commissionRate: '0.1' })
  t.equal(created.statusCode, 201)
  const seen = await call(app, { method: 'GET', url: `/v1/affiliates/${created.json().id}`, key: client.key, store: client.storeId })
  t.equal(seen.statusCode, 200)
})

t.test('a revoked grant stops the partner on the very next request', async (t) => {
  const app = await sharedApp()
  const { client, agency, partner } = await setUp(app, 'editor')
  t.equal((await as(app, partner, 'GET', '/products', client.storeId)).statusCode, 200)
  t.equal((await as(app, partner, 'GET', '/products', client.storeId)).statusCode, 200)
  await as(app, owner(client), 'DELETE', `/orgs/current/partners/${agency.orgId}`)
  const res = await as(app, partner, 'GET', '/products', client.storeId)
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('every request of a partner lands in the client\'s audit log with the partner named, not in the partner\'s', async (t) => {
  const app = await sharedApp()
  const { client, agency, member, partner } = await setUp(app, 'admin')
  await as(app, partner, 'PUT', '/products', client.storeId, { products: [{ platformProductId: 'p1' }] })
  await as(app, partner, 'DELETE', '/affiliates/aff_none', client.storeId)
  const log = (await call(app, { method: 'GET', url: '/v1/account/audit-log', key: client.key, store: client.storeId })).json().data
  const requests = log.filter((e: { action: string }) => e.action === 'partner.request')
  t.equal(requests.length, 2)
  t.match(requests[1], {
    actor: `person:${member.id}`,
    subject: `store:${client.storeId}`,
    details: { partnerOrgId: agency.orgId, personId: member.id, method: 'PUT', route: '/v1/products', status: 200 }
  })
  t.match(requests[0], { details: { method: 'DELETE', status: 404 } })
  const own = (await call(app, { method: 'GET', url: '/v1/account/audit-log', key: agency.key, store: agency.storeId })).json().data
  t.notOk(own.some((e: { action: string }) => e.action === 'partner.request'))
  t.ok(own.some((e: { action: string }) => e.action === 'partner.client_granted'))
})

t.test('the partner\'s API keys never reach a client\'s store, even with a grant', async (t) => {
  const app = await sharedApp()
  const { client, agency } = await setUp(app, 'admin')
  const res = await call(app, { method: 'GET', url: '/v1/products', key: agency.key, store: client.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('a partner never manages the client\'s keys, members or partners', async (t) => {
  const app = await sharedApp()
  const { client, partner } = await setUp(app, 'admin', 'owner')
  const key = await as(app, partner, 'POST', '/api-keys', client.storeId, { name: 'mine', role: 'viewer' })
  t.equal(key.statusCode, 403)
  t.equal(key.json().code, 'credential_not_allowed')
  const member = await as(app, partner, 'DELETE', `/account/members/${client.owner.id}`, client.storeId)
  t.equal(member.json().code, 'credential_not_allowed')
})

t.test('a partner lists its clients with their stores; another organization sees none of them', async (t) => {
  const app = await sharedApp()
  const { client, agency } = await setUp(app, 'editor')
  const clients = (await call(app, { method: 'GET', url: '/v1/partner/clients', key: agency.key })).json()
  t.match(clients, { data: [{ orgId: client.orgId, role: 'editor', stores: [{ id: client.storeId }] }], meta: { total: 1 } })
  const stranger = await makeTenant(app)
  t.equal((await call(app, { method: 'GET', url: '/v1/partner/clients', key: stranger.key })).json().meta.total, 0)
  t.equal((await call(app, { method: 'GET', url: '/v1/orgs/current/partners', key: stranger.key })).json().meta.total, 0)
})

t.test('a grant opens only the granting client\'s stores, not another organization\'s', async (t) => {
  const app = await sharedApp()
  const { partner } = await setUp(app, 'admin')
  const other = await makeTenant(app)
  const res = await as(app, partner, 'GET', '/products', other.storeId)
  t.equal(res.json().code, 'store_env_not_found')
})

t.test('an agency member connects a client\'s store by OAuth, acts there with the lesser role, and loses it on revocation', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const member = await addMember(app, agency, 'admin')
  const clientOwner = owner(client)
  await app.injectAs(clientOwner, {
    method: 'POST',
    url: '/v1/orgs/current/partners',
    payload: { partnerOrgId: agency.orgId, role: 'viewer' }
  })

  const oauthClient = await makeClient(app)
  const { page } = await openConsent({ base, client: oauthClient, person: member, scope: 'read write' })
  t.match(page.text, client.storeId, 'the consent screen offers the client\'s store under the agency')
  const { tokens } = await connect({
    base,
    client: oauthClient,
    person: member,
    org: agency.orgId,
    stores: [client.storeId],
    role: 'admin',
    scope: 'read write'
  })
  const token = tokens.access_token

  t.equal((await call(app, { method: 'GET', url: '/v1/products', key: token, store: client.storeId })).statusCode, 200)
  const listed = (await call(app, { method: 'GET', url: '/v1/account/stores', key: token })).json()
  t.same(listed.data.map((s: { id: string }) => s.id), [client.storeId], 'the connection lists the client store it was granted')
  const write = await call(app, { method: 'PUT', url: '/v1/products', key: token, store: client.storeId, payload: { products: [] } })
  t.equal(write.json().code, 'role_read_only', 'admin token, viewer grant: the lesser applies')

  await app.injectAs(clientOwner, { method: 'DELETE', url: `/v1/orgs/current/partners/${agency.orgId}` })
  const after = await call(app, { method: 'GET', url: '/v1/products', key: token, store: client.storeId })
  t.equal(after.statusCode, 404)
  t.equal(after.json().code, 'store_env_not_found')
})
