import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sharedApp } from '../helper.js'
import { errors } from '../../src/errors.js'
import { createRequire } from 'node:module'
import { Ajv } from 'ajv'
import { addApiFormats } from '../../src/lib/formats.js'

type Operation = {
  security?: unknown[]
  parameters?: Array<{ in: string, name: string, required?: boolean }>
  responses: Record<string, { description: string, content?: Record<string, { schema: { properties?: { code?: { enum?: string[] } } } }> }>
}

async function documentOf (app: FastifyInstance) {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const operations = new Map<string, Operation>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) if (method !== 'parameters') operations.set(`${method.toUpperCase()} ${path}`, op)
  }
  return { doc, operations }
}

function codesOf (op: Operation): string[] {
  return Object.values(op.responses).flatMap((response) => response.content?.['application/json']?.schema.properties?.code?.enum ?? [])
}

/** Every method and path fastify serves under /v1, read back from its own route tree (four columns a level). */
function servedRoutes (app: FastifyInstance): string[] {
  const served: string[] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ├└─]*)(\S[^(]*?)(?: \(([^)]+)\))?$/.exec(line)
    if (!match) continue
    const depth = match[1].length / 4
    stack.length = depth
    stack.push(match[2])
    const path = stack.join('').replace(/:(\w+)/g, '{$1}')
    if (!match[3] || !path.startsWith('/v1/')) continue
    for (const method of match[3].split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') served.push(`${method} ${path}`)
  }
  return served
}

t.test('every operation served under /v1 is in the document, but the document itself', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  const served = servedRoutes(app)
  t.ok(served.length >= 30, `${served.length} operations served`)
  t.same(served.filter((route) => !operations.has(route) && route !== 'GET /v1/openapi.json'), [])
})

t.test('every error code of src/errors.ts is documented on at least one operation', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  const documented = new Set([...operations.values()].flatMap(codesOf))
  const health = operations.get('GET /v1/health')!
  t.match(health.responses['503'].description, /service_unavailable/)
  documented.add('service_unavailable')
  const all = Object.values(errors).map((E) => new E().code.toLowerCase())
  t.same(all.filter((code) => !documented.has(code)), [])
})

t.test('each error response lists the codes of its own status only', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  // A code two errors share (idempotency_key_reused: loyalty's body field 409, the Idempotency-Key header's 400) has both.
  const statusesOf = (code: string) =>
    Object.values(errors).map((E) => new E()).filter((e) => e.code.toLowerCase() === code).map((e) => String(e.statusCode))
  for (const [name, op] of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      for (const code of response.content?.['application/json']?.schema.properties?.code?.enum ?? []) {
        if (!statusesOf(code).includes(status)) t.fail(`${name}: ${code} documented under ${status}`)
      }
    }
  }
  t.pass('checked every operation')
})

t.test('a store-scoped operation requires the store header with its credential, as a security scheme, not a parameter; listing stores does not', async (t) => {
  const app = await sharedApp()
  const { doc, operations } = await documentOf(app)
  t.same(doc.components.securitySchemes.storeEnv, {
    type: 'apiKey',
    in: 'header',
    name: 'x-store-env-id',
    description: doc.components.securitySchemes.storeEnv.description
  })
  for (const name of ['GET /v1/reviews', 'PUT /v1/products']) {
    t.same(operations.get(name)!.security, [{ bearer: [], storeEnv: [] }, { apiKey: [], storeEnv: [] }, { oauth2: [], storeEnv: [] }], name)
  }
  t.same(operations.get('GET /v1/account/stores')!.security, [{ bearer: [] }, { apiKey: [] }, { oauth2: [] }])
  t.notOk(codesOf(operations.get('GET /v1/account/stores')!).includes('store_env_required'))
  const asParameter = [...operations].filter(([, op]) => op.parameters?.some((p) => p.in === 'header' && p.name === 'x-store-env-id'))
  t.same(asParameter.map(([name]) => name), [], 'no operation asks for the header as a parameter of its own')
})

t.test('the operations that can answer store_env_required are those that require the store scheme', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  const credentialOps = [...operations].filter(([name, op]) => name.includes(' /v1/') && op.security?.length)
  // Every content type: an operation answering HTML documents its errors under text/html.
  const codes = (op: Operation) => Object.values(op.responses).flatMap((response) =>
    Object.values(response.content ?? {}).flatMap((media) => media.schema.properties?.code?.enum ?? [])
  )
  const mismatched = credentialOps.filter(([, op]) =>
    (op.security as Array<Record<string, unknown>>).every((r) => 'storeEnv' in r) !== codes(op).includes('store_env_required')
  )
  t.same(mismatched.map(([name]) => name), [])
  t.ok(credentialOps.length > 100, `${credentialOps.length} credential operations`)
})

t.test('credential operations accept a key or an OAuth token; public and storefront ones need neither', async (t) => {
  const app = await sharedApp()
  const { doc, operations } = await documentOf(app)
  t.same(operations.get('GET /v1/account/stores')!.security, [{ bearer: [] }, { apiKey: [] }, { oauth2: [] }])
  t.same(operations.get('GET /v1/health')!.security, [])
  t.same(operations.get('POST /v1/reviews')!.security, [])
  const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode
  const discovery = (await app.inject({ method: 'GET', url: '/oauth/.well-known/openid-configuration' })).json()
  t.equal(flow.authorizationUrl, discovery.authorization_endpoint)
  t.equal(flow.tokenUrl, discovery.token_endpoint)
})

t.test('an operation documents the refusals its pipeline and its service can give', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  const put = codesOf(operations.get('PUT /v1/products')!)
  for (
    const code of ['batch_too_large', 'role_read_only', 'insufficient_scope', 'rate_limited', 'invalid_request', 'subscription_expired']
  ) t.ok(put.includes(code), `PUT /v1/products: ${code}`)
  const list = codesOf(operations.get('GET /v1/reviews')!)
  t.notOk(list.includes('role_read_only'), 'a read cannot be refused as a write')
  t.ok(codesOf(operations.get('POST /v1/outbound-webhooks')!).includes('plan_required'))
  t.ok(codesOf(operations.get('POST /v1/api-keys')!).includes('scope_escalation'))
  t.ok(codesOf(operations.get('POST /v1/reviews')!).includes('origin_not_allowed'))
  t.notOk(codesOf(operations.get('POST /v1/reviews')!).includes('invalid_credentials'), 'the storefront form takes no credential')
})

t.test('success responses are named after their status and operation, never "Default Response"', async (t) => {
  const app = await sharedApp()
  const { operations } = await documentOf(app)
  const unnamed = [...operations].flatMap(([name, op]) =>
    Object.entries(op.responses).filter(([, r]) => !r.description || r.description === 'Default Response').map(([status]) =>
      `${name} ${status}`
    )
  )
  t.same(unnamed, [])
  t.equal(
    operations.get('POST /v1/api-keys')!.responses['201'].description,
    'Created: Create an API key; the secret is in this response only'
  )
})

t.test('every JSON request body has an example, and each example is valid against the operation\'s own schema', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  // The formats the service validates with: ajv-formats (as fastify's compiler loads it) and the API's own.
  const ajv = new Ajv({ strict: false, allErrors: true })
  ;(createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv)(ajv)
  addApiFormats(ajv)
  let checked = 0
  for (
    const [path, item] of Object.entries(
      doc.paths as Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: object, example?: unknown, examples?: Record<string, { value: unknown }> }> }
          }
        >
      >
    )
  ) {
    for (const [method, op] of Object.entries(item)) {
      const media = op.requestBody?.content['application/json']
      if (!media) continue
      checked++
      const examples = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((e) => e.value)]
      t.ok(examples.length > 0, `${method.toUpperCase()} ${path} has an example`)
      const validate = ajv.compile(media.schema)
      for (const example of examples) t.ok(validate(example), `${method.toUpperCase()} ${path}: ${ajv.errorsText(validate.errors)}`)
    }
  }
  t.ok(checked >= 8, `${checked} request bodies checked`)
})
