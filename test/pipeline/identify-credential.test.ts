import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, probeRoutes } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import type { Credential } from '../../src/types.js'

/**
 * An app with a plain resolver (a function, so asked on every request) that knows one token per credential in
 * `known`, and notes every token it is asked about.
 */
async function withResolver (t: Parameters<typeof build>[0]) {
  const known = new Map<string, Credential | null>()
  const asked: string[] = []
  const app = await build(t, {
    routes: async (app: FastifyInstance) => {
      await probeRoutes(['reviews'])(app)
      app.registerCredentialResolver(async (token) => {
        asked.push(token)
        return known.has(token) ? known.get(token) : undefined
      })
    }
  })
  return { app, known, asked }
}

function personOf (tenant: Tenant, personId: string, role: Credential['role']): Credential {
  return { type: 'oauth', id: `grant-${personId}`, orgId: tenant.orgId, role, scopes: [], personId, storeIds: null }
}

t.test('a plain resolver is asked on every request, and what it answers is the request\'s credential', async (t) => {
  const { app, known, asked } = await withResolver(t)
  const tenant = await makeTenant(app)
  known.set('tok-owner', personOf(tenant, tenant.owner.id, 'owner'))
  for (let i = 0; i < 3; i++) {
    t.equal((await call(app, { method: 'POST', url: '/v1/reviews/probe', key: 'tok-owner', store: tenant.storeId })).statusCode, 200)
  }
  t.same(asked, ['tok-owner', 'tok-owner', 'tok-owner'], 'nothing kept without markers')
})

t.test('a token its resolver answers null for gets 401 invalid_credentials, spending the per-IP failure budget', async (t) => {
  const { app, known } = await withResolver(t)
  const tenant = await makeTenant(app)
  known.set('tok-revoked', null)
  const res = await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-revoked', store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
  t.equal(res.headers['ratelimit-limit'], '30', 'the failure budget, not a credential\'s')
  t.equal(res.headers['ratelimit-remaining'], '29')
})

t.test('a person\'s credential is refused once the person left the organization or holds a lesser role than it claims', async (t) => {
  const { app, known } = await withResolver(t)
  const tenant = await makeTenant(app)
  const admin = await addMember(app, tenant, 'admin')
  const editor = await addMember(app, tenant, 'editor')
  known.set('tok-admin', personOf(tenant, admin.id, 'admin'))
  known.set('tok-editor-as-admin', personOf(tenant, editor.id, 'admin'))
  known.set('tok-editor', personOf(tenant, editor.id, 'editor'))
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-admin', store: tenant.storeId })).statusCode, 200)
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-editor', store: tenant.storeId })).statusCode, 200)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-editor-as-admin', store: tenant.storeId })).json().code,
    'invalid_credentials',
    'a role above the membership\'s'
  )
  await app.db('memberships').where({ org_id: tenant.orgId, person_id: admin.id }).delete()
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-admin', store: tenant.storeId })).json().code,
    'invalid_credentials',
    'no membership any more'
  )
})

t.test('a credential that says its membership was checked is not checked again', async (t) => {
  const { app, known } = await withResolver(t)
  const tenant = await makeTenant(app)
  known.set('tok-checked', { ...personOf(tenant, 'per_not_a_member', 'owner'), membershipChecked: true })
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: 'tok-checked', store: tenant.storeId })).statusCode, 200)
})

t.test('the first resolver that recognizes a token decides: an API key is never passed to the next one', async (t) => {
  const { app, asked } = await withResolver(t)
  const tenant = await makeTenant(app)
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/probe', key: tenant.key, store: tenant.storeId })).statusCode, 200)
  t.same(asked, [])
})
