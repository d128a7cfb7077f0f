import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, sharedApp } from '../helper.js'
import { addMember, makeKey, makeTenant, type Tenant } from '../factories.js'
import type { Credential } from '../../src/types.js'

/**
 * A person-bound credential (what the admin application acts with): `person:<personId>:<role>` authenticates as
 * that person with that role, so removal can be followed end to end. It is not an OAuth token: those may not manage
 * members at all (test/oauth/management.test.ts).
 */
function personTokens (app: FastifyInstance, tenant: Tenant) {
  app.registerCredentialResolver(async (token) => {
    const m = /^person:(\w+):(owner|admin|editor)$/.exec(token)
    if (!m) return undefined
    return { type: 'person', id: m[1], orgId: tenant.orgId, role: m[2] as Credential['role'], scopes: [], personId: m[1], storeIds: null }
  })
}

t.test('GET /account/members lists the organization\'s people with their roles', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editor = await addMember(app, tenant, 'editor')
  const res = await call(app, { method: 'GET', url: '/v1/account/members', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    data: [{ id: tenant.owner.id, email: tenant.owner.email, role: 'owner' }, { id: editor.id, email: editor.email, role: 'editor' }],
    meta: { total: 2 }
  })
})

t.test('an admin key removes an editor: 204, gone from the list, one member.removed entry', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await makeKey(app, tenant, 'admin')
  const editor = await addMember(app, tenant, 'editor')
  const res = await call(app, { method: 'DELETE', url: `/v1/account/members/${editor.id}`, key: admin.secret, store: tenant.storeId })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  const list = await call(app, { method: 'GET', url: '/v1/account/members', key: admin.secret, store: tenant.storeId })
  t.same(list.json().data.map((m: { id: string }) => m.id), [tenant.owner.id])
  const entries = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'member.removed' }).select('actor', 'subject')
  t.same(entries, [{ actor: `api_key:${admin.id}`, subject: `person:${editor.id}` }])
})

t.test('a removed person\'s credential is refused on their next request', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  personTokens(app, tenant)
  const editor = await addMember(app, tenant, 'editor')
  const token = `person:${editor.id}:editor`
  t.equal((await call(app, { method: 'GET', url: '/v1/account/members', key: token, store: tenant.storeId })).statusCode, 200)
  await call(app, { method: 'DELETE', url: `/v1/account/members/${editor.id}`, key: tenant.key, store: tenant.storeId })
  const res = await call(app, { method: 'GET', url: '/v1/account/members', key: token, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('a person credential above the person\'s current role is refused', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  personTokens(app, tenant)
  const editor = await addMember(app, tenant, 'editor')
  const res = await call(app, { method: 'GET', url: '/v1/account/members', key: `person:${editor.id}:admin`, store: tenant.storeId })
  t.equal(res.statusCode, 401)
})

t.test('an admin cannot remove an owner: 403 role_forbidden and the owner stays', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'DELETE', url: `/v1/account/members/${tenant.owner.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: tenant.owner.id })).length, 1)
  t.equal((await app.db('audit_log').where({ org_id: tenant.orgId, action: 'member.removed' })).length, 0)
})

t.test('the last owner cannot be removed: 409 conflict', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  personTokens(app, tenant)
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/account/members/${tenant.owner.id}`,
    key: `person:${tenant.owner.id}:owner`,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 409)
  t.equal(res.json().code, 'conflict')
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: tenant.owner.id })).length, 1)
})

t.test('an owner removes another owner when one remains', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  personTokens(app, tenant)
  const second = await addMember(app, tenant, 'owner')
  const res = await call(app, {
    method: 'DELETE',
    url: `/v1/account/members/${second.id}`,
    key: `person:${tenant.owner.id}:owner`,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 204)
})

t.test('an editor cannot remove members', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editorKey = await makeKey(app, tenant, 'editor')
  const other = await addMember(app, tenant, 'editor')
  const res = await call(app, { method: 'DELETE', url: `/v1/account/members/${other.id}`, key: editorKey.secret, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
})

t.test('removing an unknown member gets 404 not_found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'DELETE', url: '/v1/account/members/usr_nobody', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})
