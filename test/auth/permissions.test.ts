import t from 'tap'
// The registry is what the modules declare: importing their list fills it, as it does for the app.
import '../../src/modules/index.js'
import {
  declareResources,
  isResource,
  RESOURCES,
  ROLES,
  roleAllows,
  scopesAllow,
  scopesWithin,
  isValidScope,
  isOrgManagement,
  accessFor
} from '../../src/lib/permissions.js'

/*
 * docs/contract/tenancy-and-roles.md#roles, written out again here rather than derived from the code under test.
 * `write` lists what each role may write; `hidden` what it may not even read.
 */
const EDITOR_WRITES = ['reviews', 'products', 'orders', 'loyalty', 'faqs', 'galleries', 'customers', 'imports', 'evidence', 'email',
  'email-sequences', 'email-branding', 'email-suppressions', 'review-incentives', 'outbound-webhooks', 'webhooks', 'placements',
  'web-pages', 'categories', 'uploads', 'connectors']
const EDITOR_HIDDEN = ['api-keys', 'billing', 'orgs', 'backups']

function expected (role: string, resource: string, access: 'read' | 'write'): string {
  if (role === 'owner') return 'allowed'
  if (role === 'admin') return access === 'write' && ['billing', 'orgs'].includes(resource) ? 'forbidden' : 'allowed'
  if (role === 'viewer' && access === 'write') return 'read_only'
  if (EDITOR_HIDDEN.includes(resource)) return 'forbidden'
  if (access === 'read') return 'allowed'
  return EDITOR_WRITES.includes(resource) ? 'allowed' : 'forbidden'
}

t.test('every role x resource x read/write verdict matches the role table of docs/contract/tenancy-and-roles.md', async (t) => {
  let checked = 0
  for (const role of ROLES) {
    for (const resource of RESOURCES) {
      for (const access of ['read', 'write'] as const) {
        const verdict = roleAllows(role, resource, access)
        if (verdict !== expected(role, resource, access)) {
          t.fail(`${role} ${access} ${resource}: got ${verdict}, expected ${expected(role, resource, access)}`)
        }
        checked++
      }
    }
  }
  t.equal(checked, ROLES.length * RESOURCES.length * 2, 'every combination was checked')
})

t.test('a resource no module declares is forbidden to every role, also the owner', async (t) => {
  for (const role of ROLES) {
    for (const access of ['read', 'write'] as const) {
      t.equal(roleAllows(role, 'no-such-resource' as never, access), 'forbidden', `${role} ${access}`)
    }
  }
})

t.test('a resource two modules declare is refused', async (t) => {
  t.ok(isResource('reviews'), 'the modules declared their resources on import')
  const policy = { read: 'viewer', write: 'owner', area: 'Insight', description: 'Someone else\'s reviews.' } as const
  t.throws(
    () => declareResources([{ name: 'impostor', resources: { reviews: policy } }]),
    /Resource reviews is declared twice \(again by module impostor\)/
  )
  t.equal(roleAllows('editor', 'reviews', 'write'), 'allowed', 'the first declaration stands')
})

t.test('an owner may read and write billing and orgs', async (t) => {
  for (const resource of ['billing', 'orgs'] as const) {
    t.equal(roleAllows('owner', resource, 'read'), 'allowed')
    t.equal(roleAllows('owner', resource, 'write'), 'allowed')
  }
})

t.test('an admin may read billing and orgs but not write them', async (t) => {
  t.equal(roleAllows('admin', 'billing', 'read'), 'allowed')
  t.equal(roleAllows('admin', 'billing', 'write'), 'forbidden')
  t.equal(roleAllows('admin', 'orgs', 'write'), 'forbidden')
  t.equal(roleAllows('admin', 'api-keys', 'write'), 'allowed')
})

t.test('a viewer gets read_only on every write, even where it cannot read, and forbidden on reads it cannot make', async (t) => {
  t.equal(roleAllows('viewer', 'reviews', 'write'), 'read_only')
  t.equal(roleAllows('viewer', 'analytics', 'write'), 'read_only')
  t.equal(roleAllows('viewer', 'api-keys', 'read'), 'forbidden')
  t.equal(roleAllows('viewer', 'api-keys', 'write'), 'read_only')
  t.equal(roleAllows('viewer', 'billing', 'write'), 'read_only')
})

t.test('GET, HEAD and OPTIONS are reads and every other method is a write', async (t) => {
  for (const method of ['GET', 'HEAD', 'OPTIONS']) t.equal(accessFor(method), 'read', method)
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) t.equal(accessFor(method), 'write', method)
})

t.test('every resource the role table names is declared, with a read and a write scope', async (t) => {
  for (const resource of [...EDITOR_WRITES, ...EDITOR_HIDDEN, 'analytics', 'events', 'support']) {
    t.ok(RESOURCES.includes(resource as never), `${resource} is declared`)
  }
  for (const resource of RESOURCES) {
    t.match(resource, /^[a-z]+(-[a-z]+)*$/, `${resource} is a path segment`)
    t.ok(isValidScope(`${resource}:read`), `${resource}:read`)
    t.ok(isValidScope(`${resource}:write`), `${resource}:write`)
  }
})

t.test('scope strings are read, write or <resource>:read|write for a known resource', async (t) => {
  for (const scope of ['read', 'write', 'reviews:read', 'email-sequences:write', 'api-keys:read']) t.ok(isValidScope(scope), scope)
  for (const scope of ['', 'admin', 'reviews', 'reviews:delete', 'widgets:read', ':read', 'reviews:read:write', 'READ', '*']) {
    t.notOk(isValidScope(scope), scope)
  }
})

t.test('empty scopes allow everything', async (t) => {
  t.ok(scopesAllow([], 'reviews', 'write'))
  t.ok(scopesAllow([], 'billing', 'read'))
})

t.test('write implies read, globally and per resource', async (t) => {
  t.ok(scopesAllow(['write'], 'reviews', 'read'))
  t.ok(scopesAllow(['reviews:write'], 'reviews', 'read'))
  t.notOk(scopesAllow(['reviews:write'], 'products', 'read'))
})

t.test('read scopes never allow a write', async (t) => {
  t.notOk(scopesAllow(['read'], 'reviews', 'write'))
  t.notOk(scopesAllow(['reviews:read'], 'reviews', 'write'))
})

t.test('a resource scope does not reach other resources', async (t) => {
  t.notOk(scopesAllow(['reviews:read'], 'products', 'read'))
  t.notOk(scopesAllow(['email:write'], 'email-sequences', 'write'))
})

t.test('requested scopes are within held scopes only when every one is covered', async (t) => {
  t.ok(scopesWithin([], ['write']), 'unrestricted holds everything')
  t.ok(scopesWithin([], []), 'unrestricted may mint unrestricted')
  t.notOk(scopesWithin(['read'], []), 'a scoped credential may not mint an unrestricted one')
  t.ok(scopesWithin(['write'], ['read', 'reviews:write']))
  t.ok(scopesWithin(['read'], ['reviews:read']))
  t.notOk(scopesWithin(['read'], ['write']))
  t.notOk(scopesWithin(['read'], ['reviews:write']))
  t.ok(scopesWithin(['reviews:write'], ['reviews:read']))
  t.notOk(scopesWithin(['reviews:write'], ['read']))
  t.notOk(scopesWithin(['reviews:read'], ['products:read']))
})

t.test('a held read or write covers the same global scope asked for again', async (t) => {
  t.ok(scopesWithin(['read'], ['read']))
  t.ok(scopesWithin(['write'], ['write']))
})

t.test('several requested scopes are within the held ones only if each of them is, not just one', async (t) => {
  t.notOk(scopesWithin(['reviews:read'], ['reviews:read', 'products:read']))
  t.notOk(scopesWithin(['reviews:read'], ['products:read', 'reviews:read']))
})

t.test('writes to keys, members, OAuth clients, partners and ownership are org-level management; reads are not', async (t) => {
  for (
    const url of [
      '/v1/api-keys',
      '/v1/api-keys/:id',
      '/v1/account/members/:id',
      '/v1/connectors/oauth-clients',
      '/v1/connectors/oauth-clients/:id',
      '/v1/orgs/current/partners',
      '/v1/orgs/current/partners/:id',
      '/v1/orgs/current/transfer-ownership'
    ]
  ) {
    t.ok(isOrgManagement(url, 'write'), `write ${url}`)
    t.notOk(isOrgManagement(url, 'read'), `read ${url}`)
  }
  for (
    const url of ['/v1/connectors/connections/:id', '/v1/connectors/hooks', '/v1/account/stores', '/v1/api-keys-report', '/v1/orgs/current']
  ) {
    t.notOk(isOrgManagement(url, 'write'), `write ${url}`)
  }
})
