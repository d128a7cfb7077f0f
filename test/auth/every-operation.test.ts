import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'

/**
 * The role and scope rules hold for every operation of the OpenAPI document, not only for the probes of
 * roles.test.ts and scopes.test.ts: a route added with the wrong config (no credential, an exemption it should
 * not have) fails here without being listed anywhere.
 */

type Operation = { security?: unknown[], parameters?: Array<{ in: string, name: string }> }

/**
 * The operations that take any scope at the route (config `scopeExempt`) and check it themselves, each for its
 * reason; a route added to this list must say why.
 */
const SCOPE_EXEMPT = new Set([
  // Any key lists the stores it may use, whatever its scopes
  // (docs/contract/tenancy-and-roles.md#organizations-and-stores).
  'GET /v1/account/stores',
  // The event log takes `events:read` or a resource's scope, and filters by each event's own resource.
  'GET /v1/events', 'GET /v1/events/{id}', 'GET /v1/outbound-webhooks/events',
  // A connector's identity and trigger catalogue; polling and subscriptions check the scope of the event type.
  'GET /v1/connectors/me', 'GET /v1/connectors/triggers', 'GET /v1/connectors/triggers/{event}',
  'POST /v1/connectors/hooks', 'GET /v1/connectors/hooks', 'GET /v1/connectors/hooks/{id}', 'DELETE /v1/connectors/hooks/{id}'
])

async function credentialOperations (app: FastifyInstance) {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const out: Array<{ method: string, path: string, url: string }> = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || !op.security?.length || !path.startsWith('/v1/')) continue
      out.push({ method: method.toUpperCase(), path, url: path.replace(/\{[^}]+\}/g, 'x') })
    }
  }
  return out
}

async function setup (t: Test) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const operations = await credentialOperations(app)
  // A fresh budget for every request: the limits have tests of their own.
  const ask = async (op: { method: string, url: string }, key?: string) => {
    clock.advance(61_000)
    const res = await call(app, {
      method: op.method as 'GET',
      url: op.url,
      key,
      store: tenant.storeId,
      payload: op.method === 'GET' || op.method === 'DELETE' ? undefined : {}
    })
    return { status: res.statusCode, code: res.json().code as string | undefined }
  }
  return { app, tenant, operations, ask }
}

t.test('every credential operation answers 401 without a credential', async (t) => {
  const { operations, ask } = await setup(t)
  const answered = []
  for (const op of operations) {
    const { status, code } = await ask(op)
    if (status !== 401 || code !== 'missing_credentials') answered.push(`${op.method} ${op.path}: ${status} ${code}`)
  }
  t.same(answered, [])
  t.ok(operations.length > 100, `${operations.length} operations`)
})

t.test('every credential write refuses a viewer key before it looks at the request', async (t) => {
  const { app, tenant, operations, ask } = await setup(t)
  const viewer = await makeKey(app, tenant as Tenant, 'viewer')
  const answered = []
  for (const op of operations.filter((o) => o.method !== 'GET')) {
    const { status, code } = await ask(op, viewer.secret)
    if (status !== 403 || !['role_read_only', 'role_forbidden'].includes(code!)) answered.push(`${op.method} ${op.path}: ${status} ${code}`)
  }
  t.same(answered, [])
})

t.test('every credential operation is refused to a key scoped to another resource, but the few that check scopes themselves', async (t) => {
  const { app, tenant, operations, ask } = await setup(t)
  // Two keys of disjoint resources: whichever resource an operation belongs to, one of them lacks it.
  const reviewsOnly = await makeKey(app, tenant as Tenant, 'admin', ['reviews:read'])
  const productsOnly = await makeKey(app, tenant as Tenant, 'admin', ['products:read'])
  const answered = []
  for (const op of operations) {
    if (SCOPE_EXEMPT.has(`${op.method} ${op.path}`)) continue
    const a = await ask(op, reviewsOnly.secret)
    const b = await ask(op, productsOnly.secret)
    // Where an admin's role already refuses the operation (the owner's), the role answers first.
    const refused = [a, b].some((r) => r.status === 403 && r.code === 'insufficient_scope') ||
      [a, b].every((r) => r.code === 'role_forbidden')
    if (!refused) answered.push(`${op.method} ${op.path}: ${a.status} ${a.code} / ${b.status} ${b.code}`)
  }
  t.same(answered, [])
})
