import t from 'tap'
import { build, call, manualClock, probeRoutes, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { KEY_ROLES, RESOURCES, roleAllows } from '../../src/lib/permissions.js'

const STATUS = { allowed: [200, undefined], read_only: [403, 'role_read_only'], forbidden: [403, 'role_forbidden'] } as const

for (const role of KEY_ROLES) {
  t.test(`an unrestricted ${role} key gets the role table's answer for a read and a write on every resource`, async (t) => {
    const clock = manualClock()
    const app = await build(t, { clock, routes: probeRoutes(RESOURCES) })
    const tenant = await makeTenant(app)
    const key = await makeKey(app, tenant, role)
    const wrong: string[] = []
    for (const resource of RESOURCES) {
      for (const method of ['GET', 'POST'] as const) {
        clock.advance(60_000) // a fresh rate-limit budget for every call
        const res = await call(app, { method, url: `/v1/${resource}/probe`, key: key.secret, store: tenant.storeId })
        const [status, code] = STATUS[roleAllows(role, resource, method === 'GET' ? 'read' : 'write')]
        if (res.statusCode !== status || res.json().code !== code) {
          wrong.push(`${role} ${method} ${resource}: got ${res.statusCode} ${res.json().code}, expected ${status} ${code}`)
        }
      }
    }
    t.same(wrong, [], `every answer of ${RESOURCES.length * 2} follows the role table`)
  })
}

t.test('a viewer key may read the account resource but gets role_read_only on a write', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const read = await call(app, { method: 'GET', url: '/v1/account/members', key: viewer.secret, store: tenant.storeId })
  t.equal(read.statusCode, 200)
  const write = await call(app, {
    method: 'DELETE',
    url: `/v1/account/members/${tenant.owner.id}`,
    key: viewer.secret,
    store: tenant.storeId
  })
  t.equal(write.statusCode, 403)
  t.equal(write.json().code, 'role_read_only')
})

t.test('an editor key cannot reach /api-keys at all', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editor = await makeKey(app, tenant, 'editor')
  for (
    const [method, url] of [['GET', '/v1/api-keys'], ['POST', '/v1/api-keys'], ['GET', `/v1/api-keys/${editor.id}`], [
      'DELETE',
      `/v1/api-keys/${editor.id}`
    ]] as const
  ) {
    const res = await call(app, {
      method,
      url,
      key: editor.secret,
      store: tenant.storeId,
      payload: method === 'POST' ? { name: 'x', role: 'viewer' } : undefined
    })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().code, 'role_forbidden', `${method} ${url}`)
  }
})

t.test('the audit log needs an admin: an editor key gets role_forbidden', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editor = await makeKey(app, tenant, 'editor')
  const res = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: editor.secret, store: tenant.storeId })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
})

t.test('a viewer key gets role_read_only on every write, also where its role cannot even read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const writes = [
    ['POST', '/v1/api-keys', { name: 'x', role: 'viewer' }],
    ['DELETE', '/v1/api-keys/key_nope', undefined],
    ['POST', '/v1/connectors/oauth-clients', { name: 'x', redirectUris: ['https://zapier.example/return'] }],
    ['DELETE', `/v1/account/members/${tenant.owner.id}`, undefined]
  ] as const
  for (const [method, url, payload] of writes) {
    const res = await call(app, { method, url, key: viewer.secret, store: tenant.storeId, payload })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().code, 'role_read_only', `${method} ${url}`)
  }
})

t.test('the audit log needs an admin: an admin key reads it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await makeKey(app, tenant, 'admin')
  const res = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: admin.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})
