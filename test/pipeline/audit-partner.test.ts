import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { as, owner, person } from '../partners/support.js'

async function partnerRequestsOf (app: FastifyInstance, tenant: Tenant) {
  const log = (await call(app, { method: 'GET', url: '/v1/account/audit-log', key: tenant.key, store: tenant.storeId })).json().data
  return log.filter((e: { action: string }) => e.action === 'partner.request')
}

t.test('a partner\'s request refused by the access step is recorded with its refusal\'s status', async (t) => {
  const app = await sharedApp()
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const member = await addMember(app, agency, 'admin')
  await as(app, owner(client), 'POST', '/orgs/current/partners', undefined, { partnerOrgId: agency.orgId, role: 'viewer' })
  const refused = await as(app, person(agency.orgId, member.id, 'admin'), 'PUT', '/products', client.storeId, { products: [] })
  t.equal(refused.json().code, 'role_read_only')
  const recorded = await partnerRequestsOf(app, client)
  t.equal(recorded.length, 1)
  t.match(recorded[0], { details: { partnerOrgId: agency.orgId, method: 'PUT', route: '/v1/products', status: 403 } })
})

t.test('a partner refused before a store is resolved leaves nothing in any audit log', async (t) => {
  const app = await sharedApp()
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const member = await addMember(app, agency, 'admin')
  const res = await as(app, person(agency.orgId, member.id, 'admin'), 'GET', '/products', client.storeId)
  t.equal(res.json().code, 'store_env_not_found', 'no grant')
  t.same(await partnerRequestsOf(app, client), [])
  t.same(await partnerRequestsOf(app, agency), [])
})

t.test('an organization\'s own requests on its own stores are not partner requests', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  t.equal((await as(app, owner(tenant), 'GET', '/products', tenant.storeId)).statusCode, 200)
  t.equal((await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })).statusCode, 200)
  t.same(await partnerRequestsOf(app, tenant), [])
})
