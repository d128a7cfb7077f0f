import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

/** Keys and audit entries of the tenant: a refused request must change neither. */
async function state (app: FastifyInstance, tenant: Tenant) {
  const [keys] = await app.db('api_keys').where({ org_id: tenant.orgId }).count<Array<{ n: number }>>({ n: '*' })
  const [audit] = await app.db('audit_log').where({ org_id: tenant.orgId }).count<Array<{ n: number }>>({ n: '*' })
  return { keys: Number(keys.n), audit: Number(audit.n) }
}

async function refused (
  t: Test,
  options: { payload: unknown, headers?: Record<string, string>, status: number, code: string, message?: RegExp }
) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId }) // the first use is audited
  const before = await state(app, tenant)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    headers: { 'content-type': 'application/json', ...options.headers },
    payload: typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload)
  })
  t.equal(res.statusCode, options.status)
  const body = res.json()
  t.equal(body.code, options.code)
  t.type(body.message, 'string')
  if (options.message) t.match(body.message, options.message)
  t.notMatch(res.body, /at .*\.ts:\d+|stack|SELECT|INSERT/i, 'no stack trace or SQL')
  t.same(await state(app, tenant), before, 'no key and no audit entry was written')
  return body
}

t.test('malformed JSON gets 400 invalid_request and changes nothing', async (t) => {
  await refused(t, { payload: '{"name": "x", "role": ', status: 400, code: 'invalid_request' })
})

t.test('an empty JSON body gets 400 invalid_request', async (t) => {
  await refused(t, { payload: '', status: 400, code: 'invalid_request' })
})

t.test('a JSON array instead of an object gets 400 invalid_request', async (t) => {
  await refused(t, { payload: [], status: 400, code: 'invalid_request' })
})

t.test('a missing name gets 400 invalid_request with the field\'s path', async (t) => {
  const body = await refused(t, { payload: { role: 'viewer' }, status: 400, code: 'invalid_request' })
  t.match(body.errors, [{ path: 'name' }])
})

t.test('a wrongly typed field gets 400 invalid_request naming it', async (t) => {
  const body = await refused(t, { payload: { name: 'x', role: 'viewer', scopes: 'read' }, status: 400, code: 'invalid_request' })
  t.match(body.errors, [{ path: 'scopes' }])
})

t.test('a number where the role belongs gets 400 invalid_request', async (t) => {
  await refused(t, { payload: { name: 'x', role: 5 }, status: 400, code: 'invalid_request' })
})

t.test('an unknown role gets 400 invalid_request', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'superuser' }, status: 400, code: 'invalid_request' })
})

t.test('an unknown field gets 400 invalid_request', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', owner: true }, status: 400, code: 'invalid_request' })
})

t.test('a body over 5 MB gets 413 payload_too_large', async (t) => {
  await refused(t, { payload: { name: 'x'.repeat(6 * 1024 * 1024), role: 'viewer' }, status: 413, code: 'payload_too_large' })
})

t.test('a body that is not JSON gets 415 unsupported_media_type', async (t) => {
  await refused(t, { payload: 'name=x&role=viewer', headers: { 'content-type': 'text/csv' }, status: 415, code: 'unsupported_media_type' })
})

t.test('an unknown resource in a scope gets 400 invalid_scope naming it', async (t) => {
  await refused(t, {
    payload: { name: 'x', role: 'viewer', scopes: ['reviews:read', 'widgets:read'] },
    status: 400,
    code: 'invalid_scope',
    message: /widgets:read/
  })
})

t.test('an unknown action in a scope gets 400 invalid_scope', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', scopes: ['reviews:delete'] }, status: 400, code: 'invalid_scope' })
})

t.test('a scope without a resource gets 400 invalid_scope', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', scopes: ['admin'] }, status: 400, code: 'invalid_scope' })
})

t.test('an expiry in the past gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: '2020-01-01T00:00:00Z' }, status: 400, code: 'invalid_expiry' })
})

t.test('an expiry equal to now gets 400 invalid_expiry', async (t) => {
  await refused(t, {
    payload: { name: 'x', role: 'viewer', expiresAt: new Date(manualClock()()).toISOString() },
    status: 400,
    code: 'invalid_expiry'
  })
})

t.test('an unparseable expiry gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: 'next tuesday' }, status: 400, code: 'invalid_expiry' })
})

t.test('an expiry with an impossible date gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: '2027-02-30T00:00:00Z' }, status: 400, code: 'invalid_expiry' })
})

t.test('an expiry that is a date but not ISO 8601 gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: 'December 25, 2027' }, status: 400, code: 'invalid_expiry' })
})

t.test('an expiry without a time zone gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: '2027-06-01T00:00:00' }, status: 400, code: 'invalid_expiry' })
})

t.test('an expiry 100 years away gets 400 invalid_expiry', async (t) => {
  await refused(t, { payload: { name: 'x', role: 'viewer', expiresAt: '2126-11-23T12:00:00Z' }, status: 400, code: 'invalid_expiry' })
})

t.test('an ISO 8601 expiry with an offset within 5 years is accepted and shown in UTC', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'x', role: 'viewer', expiresAt: '2027-06-01T02:00:00+02:00' }
  })
  t.equal(res.statusCode, 201)
  t.equal(res.json().expiresAt, '2027-06-01T00:00:00.000Z')
})

t.test('duplicate scopes are stored once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'x', role: 'viewer', scopes: ['read', 'read'] }
  })
  t.same(res.json().scopes, ['read'])
})

t.test('a number where a string belongs gets 400, not a key named "123"', async (t) => {
  await refused(t, { payload: { name: 123, role: 'viewer' }, status: 400, code: 'invalid_request' })
})

t.test('query strings are still read as numbers where the schema says so', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys?page=1&limit=5', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.equal(res.json().meta.limit, 5)
})
