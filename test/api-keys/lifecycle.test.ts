import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp, errorBody } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

async function auditOf (app: FastifyInstance, orgId: string, keyId: string) {
  return app.db('audit_log').where({ org_id: orgId, subject: `api_key:${keyId}` }).orderBy('id').select('action', 'actor', 'ip')
}

t.test('creating a key writes one api_key.created entry naming the creator', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await makeKey(app, tenant, 'admin')
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: admin.secret,
    store: tenant.storeId,
    payload: { name: 'Zapier', role: 'viewer' },
    remoteAddress: '203.0.113.7'
  })
  t.equal(res.statusCode, 201)
  t.equal(res.json().status, 'active')
  t.same(await auditOf(app, tenant.orgId, res.json().id), [{ action: 'api_key.created', actor: `api_key:${admin.id}`, ip: '203.0.113.7' }])
})

t.test('the first authenticated use writes one api_key.first_used entry, and later uses none', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  t.same((await auditOf(app, tenant.orgId, key.id)).map((e) => e.action), ['api_key.created'])
  for (let i = 0; i < 3; i++) {
    t.equal((await call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })).statusCode, 200)
  }
  t.same((await auditOf(app, tenant.orgId, key.id)).map((e) => e.action), ['api_key.created', 'api_key.first_used'])
  const shown = await call(app, { method: 'GET', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  t.ok(shown.json().firstUsedAt, 'the key shows when it was first used')
})

t.test('concurrent first uses still write exactly one api_key.first_used entry', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const results = await Promise.all(
    Array.from({ length: 6 }, () => call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId }))
  )
  t.same(results.map((r) => r.statusCode), [200, 200, 200, 200, 200, 200])
  const firstUses = (await auditOf(app, tenant.orgId, key.id)).filter((e) => e.action === 'api_key.first_used')
  t.equal(firstUses.length, 1)
})

t.test('a key works until its expiry moment and gets 401 from that moment on, without an audit entry', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const expiresAt = new Date(clock() + 3_600_000).toISOString()
  const key = await makeKey(app, tenant, 'editor', [], expiresAt)
  const use = () => call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })
  clock.advance(3_600_000 - 1)
  t.equal((await use()).statusCode, 200, 'one millisecond before expiry')
  clock.advance(1)
  const refused = await use()
  t.equal(refused.statusCode, 401, 'at the expiry moment')
  t.equal(refused.json().code, 'invalid_credentials')
  const listed = await call(app, { method: 'GET', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(listed.json().status, 'expired')
  t.same((await auditOf(app, tenant.orgId, key.id)).map((e) => e.action), ['api_key.created', 'api_key.first_used'])
})

t.test('the key list shows a key past its expiry as expired', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', [], new Date(clock() + 60_000).toISOString())
  clock.advance(60_000)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId })
  t.equal(res.json().data.find((k: { id: string }) => k.id === key.id).status, 'expired')
})

t.test('revoking a key refuses it on the very next request and writes one api_key.revoked entry', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await makeKey(app, tenant, 'admin')
  const key = await makeKey(app, tenant, 'editor')
  t.equal((await call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })).statusCode, 200)
  const revoked = await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: admin.secret, store: tenant.storeId })
  t.equal(revoked.statusCode, 200)
  t.equal(revoked.json().status, 'revoked')
  t.ok(revoked.json().revokedAt)
  const refused = await call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'invalid_credentials')
  const entries = (await auditOf(app, tenant.orgId, key.id)).filter((e) => e.action === 'api_key.revoked')
  t.same(entries, [{ action: 'api_key.revoked', actor: `api_key:${admin.id}`, ip: '127.0.0.1' }])
})

t.test('revoking a revoked key changes nothing and writes no second entry', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const first = await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  clock.advance(5000)
  const second = await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(second.statusCode, 200)
  t.equal(second.json().revokedAt, first.json().revokedAt, 'the revocation time stays the first one')
  t.equal((await auditOf(app, tenant.orgId, key.id)).filter((e) => e.action === 'api_key.revoked').length, 1)
})

t.test('an expired and a revoked key get the same answer as an unknown key', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const expired = await makeKey(app, tenant, 'editor', [], new Date(clock() + 1000).toISOString())
  const revoked = await makeKey(app, tenant, 'editor')
  await call(app, { method: 'DELETE', url: `/v1/api-keys/${revoked.id}`, key: tenant.key, store: tenant.storeId })
  clock.advance(1000)
  const bodies = []
  for (const secret of [expired.secret, revoked.secret, 'svc_' + '0'.repeat(40)]) {
    const res = await call(app, { method: 'GET', url: '/v1/account/members', key: secret, store: tenant.storeId })
    bodies.push([res.statusCode, errorBody(res)])
  }
  t.same(bodies[0], bodies[2])
  t.same(bodies[1], bodies[2])
})

t.test('the audit log lists the key events newest first and filters by action', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  await call(app, { method: 'GET', url: '/v1/account/members', key: key.secret, store: tenant.storeId })
  await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  const res = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const mine = res.json().data.filter((e: { subject: string }) => e.subject === `api_key:${key.id}`)
  t.same(mine.map((e: { action: string }) => e.action), ['api_key.revoked', 'api_key.first_used', 'api_key.created'])
  const filtered = await call(app, {
    method: 'GET',
    url: '/v1/account/audit-log?action=api_key.revoked',
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(filtered.json().data.map((e: { action: string }) => e.action), ['api_key.revoked'])
})
