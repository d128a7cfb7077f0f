import t from 'tap'
import { call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { connect, makeClient, serve } from './oauth-helper.js'

/** The same role/scope rules for keys and OAuth tokens: one small matrix, run for both credential types. */
const MATRIX: Array<
  {
    role: 'admin' | 'editor' | 'viewer'
    scopes: string[]
    method: 'GET' | 'POST' | 'DELETE'
    url: string
    payload?: object
    status: number
    code?: string
  }
> = [
  { role: 'editor', scopes: ['reviews:read'], method: 'GET', url: '/v1/api-keys', status: 403, code: 'role_forbidden' },
  { role: 'editor', scopes: ['reviews:read'], method: 'GET', url: '/v1/connectors/connections', status: 403, code: 'insufficient_scope' },
  { role: 'admin', scopes: ['api-keys:read'], method: 'GET', url: '/v1/api-keys', status: 200 },
  {
    role: 'admin',
    scopes: ['api-keys:read'],
    method: 'POST',
    url: '/v1/api-keys',
    payload: { name: 'x', role: 'viewer' },
    status: 403,
    code: 'insufficient_scope'
  },
  { role: 'viewer', scopes: ['connectors:write'], method: 'GET', url: '/v1/connectors/connections', status: 200 },
  {
    role: 'viewer',
    scopes: ['connectors:write'],
    method: 'DELETE',
    url: '/v1/connectors/connections/nope',
    status: 403,
    code: 'role_read_only'
  },
  { role: 'editor', scopes: ['read'], method: 'GET', url: '/v1/account/audit-log', status: 403, code: 'role_forbidden' },
  { role: 'editor', scopes: ['read'], method: 'GET', url: '/v1/account/stores', status: 200 }
]

t.test('API keys and OAuth tokens with the same role and scopes get the same answers', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const tokens = new Map<string, string>()
  for (const row of MATRIX) {
    const combo = `${row.role}:${row.scopes.join(' ')}`
    if (!tokens.has(combo)) {
      const { tokens: issued } = await connect({
        base,
        client,
        person: tenant.owner,
        org: tenant.orgId,
        stores: [tenant.storeId],
        role: row.role,
        scope: row.scopes.join(' ')
      })
      tokens.set(combo, issued.access_token)
    }
    const key = await makeKey(app, tenant, row.role, row.scopes)
    for (const [type, credential] of [['api key', key.secret], ['oauth', tokens.get(combo)!]]) {
      const res = await call(app, { method: row.method, url: row.url, key: credential, store: tenant.storeId, payload: row.payload })
      t.equal(res.statusCode, row.status, `${type} ${combo} ${row.method} ${row.url}`)
      if (row.code) t.equal(res.json().code, row.code, `${type} ${combo} ${row.method} ${row.url} code`)
    }
  }
})

t.test('an OAuth token has its own rate budget, keyed by the grant', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const { tokens } = await connect({
    base,
    client: await makeClient(app),
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor',
    scope: 'read'
  })
  for (let i = 0; i < 10; i++) {
    await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  }
  const limited = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(limited.statusCode, 429)
  const key = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, store: tenant.storeId })
  t.equal(key.statusCode, 200, 'the organization\'s key is not affected')
})
