import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import type { Credential } from '../../src/types.js'

function countKeys (app: FastifyInstance, orgId: string) {
  return app.db('api_keys').where({ org_id: orgId }).count<Array<{ n: number }>>({ n: '*' }).then(([r]) => Number(r.n))
}

t.test('a scoped key cannot mint an unrestricted key: 403 scope_escalation', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scoped = await makeKey(app, tenant, 'admin', ['api-keys:write', 'reviews:read'])
  const before = await countKeys(app, tenant.orgId)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: scoped.secret,
    store: tenant.storeId,
    payload: { name: 'wider', role: 'editor' }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'scope_escalation')
  t.equal(await countKeys(app, tenant.orgId), before)
})

t.test('a scoped key cannot mint a key with a scope outside its own', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scoped = await makeKey(app, tenant, 'admin', ['api-keys:write', 'reviews:read'])
  for (const scopes of [['reviews:write'], ['products:read'], ['read'], ['write']]) {
    const res = await call(app, {
      method: 'POST',
      url: '/v1/api-keys',
      key: scoped.secret,
      store: tenant.storeId,
      payload: { name: 'wider', role: 'viewer', scopes }
    })
    t.equal(res.json().code, 'scope_escalation', scopes.join(','))
  }
})

t.test('a scoped key may mint a key within its own scopes', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scoped = await makeKey(app, tenant, 'admin', ['api-keys:write', 'reviews:write'])
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: scoped.secret,
    store: tenant.storeId,
    payload: { name: 'narrow', role: 'viewer', scopes: ['reviews:read'] }
  })
  t.equal(res.statusCode, 201)
  t.same(res.json().scopes, ['reviews:read'])
})

t.test('a key whose scopes do not cover api-keys cannot mint anything', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const reader = await makeKey(app, tenant, 'admin', ['read'])
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: reader.secret,
    store: tenant.storeId,
    payload: { name: 'x', role: 'viewer', scopes: ['read'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
})

t.test('a viewer key asking to create a key gets 403 role_read_only and no key is made', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const before = await countKeys(app, tenant.orgId)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: viewer.secret,
    store: tenant.storeId,
    payload: { name: 'wider', role: 'admin' }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_read_only')
  t.equal(await countKeys(app, tenant.orgId), before)
})

t.test('an owner role is never put in a key: 400 and no key made', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const before = await countKeys(app, tenant.orgId)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'boss', role: 'owner' }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
  t.equal(await countKeys(app, tenant.orgId), before)
})

t.test('a credential below admin asking for a higher role gets role_escalation from the service', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const service = app.services.apiKeys
  const credential = (role: Credential['role']): Credential => ({
    type: 'oauth',
    id: 'grant_x',
    orgId: tenant.orgId,
    role,
    scopes: [],
    personId: null,
    storeIds: null
  })
  await t.rejects(service.create(credential('viewer'), { name: 'x', role: 'editor' }, null), { code: 'ROLE_ESCALATION' })
  await t.rejects(service.create(credential('editor'), { name: 'x', role: 'admin' }, null), { code: 'ROLE_ESCALATION' })
  await t.rejects(service.create(credential('owner'), { name: 'x', role: 'owner' }, null), { code: 'ROLE_ESCALATION' })
  const same = await service.create(credential('editor'), { name: 'x', role: 'editor' }, null)
  t.equal(same.role, 'editor', 'the same role is allowed')
})
