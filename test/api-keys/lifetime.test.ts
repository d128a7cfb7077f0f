import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

/* docs/contract/tenancy-and-roles.md#no-escalation: a key minted by an expiring key expires no later than it. */
const HOUR = 3_600_000

async function expiringAdmin (t: Parameters<typeof build>[0]) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const creator = await makeKey(app, tenant, 'admin', [], new Date(clock() + 2 * HOUR).toISOString())
  const create = (payload: Record<string, unknown>) =>
    call(app, {
      method: 'POST',
      url: '/v1/api-keys',
      key: creator.secret,
      store: tenant.storeId,
      payload: { name: 'child', role: 'editor', ...payload }
    })
  return { app, clock, tenant, creator, create }
}

function countKeys (app: FastifyInstance, orgId: string) {
  return app.db('api_keys').where({ org_id: orgId }).count<Array<{ n: number }>>({ n: '*' }).then(([r]) => Number(r.n))
}

t.test('a key that expires cannot create a key without expiry: 400 expiry_exceeds_credential and no key made', async (t) => {
  const { app, tenant, create } = await expiringAdmin(t)
  const before = await countKeys(app, tenant.orgId)
  const res = await create({})
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'expiry_exceeds_credential')
  t.match(res.json().message, /expiresAt/)
  t.equal(await countKeys(app, tenant.orgId), before)
})

t.test('a key that expires cannot create a key that expires after it: 400 expiry_exceeds_credential', async (t) => {
  const { clock, create } = await expiringAdmin(t)
  const res = await create({ expiresAt: new Date(clock() + 2 * HOUR + 1000).toISOString() })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'expiry_exceeds_credential')
})

t.test('a key that expires may create a key expiring at the same moment or before', async (t) => {
  const { clock, create } = await expiringAdmin(t)
  for (const at of [clock() + 2 * HOUR, clock() + HOUR]) {
    const res = await create({ expiresAt: new Date(at).toISOString() })
    t.equal(res.statusCode, 201, res.body)
    t.equal(res.json().expiresAt, new Date(at).toISOString())
  }
})

t.test('a key without expiry may still create a key without expiry', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'lasting', role: 'viewer' }
  })
  t.equal(res.statusCode, 201)
  t.equal(res.json().expiresAt, null)
})

t.test('an expiring key cannot escape its expiry through a chain of keys', async (t) => {
  const { app, clock, tenant, create } = await expiringAdmin(t)
  const child = await create({ role: 'admin', expiresAt: new Date(clock() + HOUR).toISOString() })
  t.equal(child.statusCode, 201)
  const grandchild = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: child.json().secret,
    store: tenant.storeId,
    payload: { name: 'grandchild', role: 'viewer', expiresAt: new Date(clock() + 2 * HOUR).toISOString() }
  })
  t.equal(grandchild.statusCode, 400)
  t.equal(grandchild.json().code, 'expiry_exceeds_credential')
})

t.test('an expiring key cannot create a key with a role above its own or scopes outside its own', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const expiresAt = new Date(clock() + HOUR).toISOString()
  const creator = await makeKey(app, tenant, 'admin', ['api-keys:write', 'reviews:read'], expiresAt)
  const create = (payload: Record<string, unknown>) =>
    call(app, {
      method: 'POST',
      url: '/v1/api-keys',
      key: creator.secret,
      store: tenant.storeId,
      payload: { name: 'child', expiresAt, ...payload }
    })
  t.equal((await create({ role: 'viewer', scopes: ['reviews:write'] })).json().code, 'scope_escalation')
  t.equal((await create({ role: 'viewer', scopes: [] })).json().code, 'scope_escalation', 'unrestricted is wider than any scopes')
  t.equal((await create({ role: 'viewer', scopes: ['reviews:read'] })).statusCode, 201)
})
