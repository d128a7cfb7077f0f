import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { addMember, asPerson, makeTenant, type Tenant } from '../factories.js'

type App = Awaited<ReturnType<typeof sharedApp>>

const transfer = (
  app: App,
  tenant: Tenant,
  personId: string,
  by: { id: string, role?: 'owner' | 'admin' } = { id: tenant.owner.id },
  type?: 'oauth'
) => asPerson(app, tenant, by, { method: 'POST', url: '/v1/orgs/current/transfer-ownership', payload: { personId }, type })

const roleOf = async (app: App, tenant: Tenant, personId: string) =>
  (await app.db('memberships').where({ org_id: tenant.orgId, person_id: personId }).first())?.role

t.test('GET /orgs/current shows the credential\'s organization and its owners', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/orgs/current', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { id: tenant.orgId, name: /^Org /, owners: [{ id: tenant.owner.id, email: tenant.owner.email }], createdAt: String })
})

t.test('the owner renames the organization, trimmed and audited', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await asPerson(app, tenant, { id: tenant.owner.id }, {
    method: 'PATCH',
    url: '/v1/orgs/current',
    payload: { name: '  Northwind Outfitters ' }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.json().name, 'Northwind Outfitters')
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/orgs/current', key: tenant.key, store: tenant.storeId })).json().name,
    'Northwind Outfitters'
  )
  const entry = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'org.renamed' }).first()
  t.match(JSON.parse(entry.details), { to: 'Northwind Outfitters' })
  t.equal(entry.actor, `person:${tenant.owner.id}`)
})

t.test('a rename by an admin is refused, and so are blank, over-long or odd names', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  t.equal(
    (await call(app, { method: 'PATCH', url: '/v1/orgs/current', key: tenant.key, store: tenant.storeId, payload: { name: 'Mine now' } }))
      .json().code,
    'role_forbidden'
  )
  for (const name of ['', '   ', 'x'.repeat(201), 42, null]) {
    const res = await asPerson(app, tenant, { id: tenant.owner.id }, { method: 'PATCH', url: '/v1/orgs/current', payload: { name } })
    t.equal(res.statusCode, 400, JSON.stringify(name).slice(0, 20))
    t.equal(res.json().code, 'invalid_request')
  }
  const emoji = await asPerson(app, tenant, { id: tenant.owner.id }, {
    method: 'PATCH',
    url: '/v1/orgs/current',
    payload: { name: '🦊'.repeat(200) }
  })
  t.equal(emoji.statusCode, 200, '200 four-byte characters fit the column')
})

t.test('ownership goes to an admin member: they become owner, the old owner becomes admin, and it is audited', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await addMember(app, tenant, 'admin')
  const res = await transfer(app, tenant, admin.id)
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().owners, [{ id: admin.id, email: admin.email }])
  t.equal(await roleOf(app, tenant, admin.id), 'owner')
  t.equal(await roleOf(app, tenant, tenant.owner.id), 'admin')
  const entry = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'org.ownership_transferred' }).first()
  t.match(entry, { actor: `person:${tenant.owner.id}`, subject: `person:${admin.id}` })
})

t.test('the former owner cannot transfer again, even with a credential issued while they were owner', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const [first, second] = [await addMember(app, tenant, 'admin'), await addMember(app, tenant, 'admin')]
  t.equal((await transfer(app, tenant, first.id)).statusCode, 200)
  const again = await transfer(app, tenant, second.id)
  t.equal(again.statusCode, 403)
  t.equal(again.json().code, 'role_forbidden')
  t.equal(await roleOf(app, tenant, second.id), 'admin')
})

t.test('a transfer to a non-member, an editor, an owner or oneself is refused and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const editor = await addMember(app, tenant, 'editor')
  const coOwner = await addMember(app, tenant, 'owner')
  const cases: Array<[string, number, string]> = [
    [other.owner.id, 404, 'not_found'],
    ['usr_unknown', 404, 'not_found'],
    [editor.id, 409, 'conflict'],
    [coOwner.id, 409, 'conflict'],
    [tenant.owner.id, 400, 'invalid_request']
  ]
  for (const [personId, status, code] of cases) {
    const res = await transfer(app, tenant, personId)
    t.equal(res.statusCode, status, personId)
    t.equal(res.json().code, code, personId)
  }
  t.equal(await roleOf(app, tenant, tenant.owner.id), 'owner')
  t.equal(await roleOf(app, tenant, editor.id), 'editor')
  t.equal(await roleOf(app, other, other.owner.id), 'owner')
})

t.test('admins, keys and OAuth tokens cannot transfer ownership', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await addMember(app, tenant, 'admin')
  t.equal((await transfer(app, tenant, admin.id, { id: admin.id, role: 'admin' })).json().code, 'role_forbidden')
  t.equal(
    (await call(app, {
      method: 'POST',
      url: '/v1/orgs/current/transfer-ownership',
      key: tenant.key,
      store: tenant.storeId,
      payload: { personId: admin.id }
    })).json().code,
    'role_forbidden'
  )
  t.equal((await transfer(app, tenant, admin.id, { id: tenant.owner.id }, 'oauth')).json().code, 'credential_not_allowed')
  t.equal(await roleOf(app, tenant, admin.id), 'admin')
})

t.test('a transfer body must name a person id of sensible length', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const payload of [{}, { personId: '' }, { personId: 'x'.repeat(41) }, { personId: 7 }, { personId: 'usr_x', role: 'owner' }]) {
    const res = await asPerson(app, tenant, { id: tenant.owner.id }, {
      method: 'POST',
      url: '/v1/orgs/current/transfer-ownership',
      payload
    })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 30))
  }
})
