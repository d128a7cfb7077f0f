import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, onMysql, sharedApp, statementsOf } from '../helper.js'
import { addMember, makeStore, makeTenant } from '../factories.js'
import { as, owner, person } from '../partners/support.js'
import type { Credential } from '../../src/types.js'

/** A probe answering the store and credential the request acts with. */
async function storeProbe (app: FastifyInstance) {
  app.get(
    '/v1/reviews/acting',
    async (request) => ({
      store: request.store?.id ?? null,
      plan: request.store?.plan ?? null,
      orgId: request.credential?.orgId,
      role: request.credential?.role
    })
  )
}

t.test('a warm store comes from memory while its marker holds, and from the database once it moved', async (t) => {
  const app = await build(t, { routes: storeProbe })
  const tenant = await makeTenant(app)
  const acting = async () => (await call(app, { method: 'GET', url: '/v1/reviews/acting', key: tenant.key, store: tenant.storeId })).json()
  t.match(await acting(), { store: tenant.storeId, plan: 'growth' })
  const reads = statementsOf(t, app, /store_envs/)
  t.match(await acting(), { store: tenant.storeId, plan: 'growth' })
  if (onMysql) t.same(reads, [], 'unchanged marker: no query')
  else t.ok(reads.length > 0, 'no Redis: read every time')
  await app.services.bootstrap.setPlan({ store: tenant.storeId, plan: 'pro', status: 'active' })
  reads.length = 0
  t.match(await acting(), { store: tenant.storeId, plan: 'pro' }, 'the change is seen on the next request')
  t.ok(reads.length > 0, 'read again')
})

t.test('a credential restricted to some stores gets store_env_not_found for the organization\'s others', async (t) => {
  const app = await build(t, { routes: storeProbe })
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant)
  const restricted: Credential = { ...owner(tenant), storeIds: [tenant.storeId] }
  const inGrant = await app.injectAs(restricted, {
    method: 'GET',
    url: '/v1/reviews/acting',
    headers: { 'x-store-env-id': tenant.storeId }
  })
  t.equal(inGrant.json().store, tenant.storeId)
  const outside = await app.injectAs(restricted, { method: 'GET', url: '/v1/reviews/acting', headers: { 'x-store-env-id': second } })
  t.equal(outside.statusCode, 404)
  t.equal(outside.json().code, 'store_env_not_found')
})

t.test('on a client\'s store a partner acts as the client\'s organization with the lesser role', async (t) => {
  const app = await build(t, { routes: storeProbe })
  const client = await makeTenant(app)
  const agency = await makeTenant(app)
  const member = await addMember(app, agency, 'admin')
  t.equal(
    (await as(app, owner(client), 'POST', '/orgs/current/partners', undefined, { partnerOrgId: agency.orgId, role: 'editor' })).statusCode,
    201
  )
  const res = await app.injectAs(person(agency.orgId, member.id, 'admin'), {
    method: 'GET',
    url: '/v1/reviews/acting',
    headers: { 'x-store-env-id': client.storeId }
  })
  t.same(res.json(), { store: client.storeId, plan: 'growth', orgId: client.orgId, role: 'editor' })
})

t.test('a route that is not store-scoped resolves no store, whatever the header names', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, store: 'env_doesnotexist' })
  t.equal(res.statusCode, 200)
})
