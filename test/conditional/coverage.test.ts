import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sharedApp } from '../helper.js'

type Operation = {
  security?: unknown[]
  parameters?: Array<{ in: string, name: string }>
  responses: Record<string, { headers?: Record<string, unknown> }>
}

async function operationsOf (app: FastifyInstance) {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const operations = new Map<string, Operation>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) if (method !== 'parameters') operations.set(`${method.toUpperCase()} ${path}`, op)
  }
  return operations
}

const header = (op: Operation, name: string) => op.parameters?.some((p) => p.in === 'header' && p.name === name) ?? false

/** Resources read one at a time without a path parameter. */
const SINGLETONS = [
  '/v1/orgs/current',
  '/v1/billing/subscription',
  '/v1/affiliates/settings',
  '/v1/loyalty/settings',
  '/v1/email/settings',
  '/v1/email-branding',
  '/v1/sending-domain'
]

/** Writes of resources with an ETag that do not check If-Match yet: they answer 412 to any tag but `*`. */
const NOT_YET = [
  'DELETE /v1/api-keys/{id}',
  'DELETE /v1/email-sequences/{id}',
  'DELETE /v1/email/templates/{key}',
  'DELETE /v1/email/providers/{provider}',
  'PATCH /v1/orgs/current'
]

t.test('every single-resource GET with a credential documents an ETag, a 304 and If-None-Match', async (t) => {
  const operations = await operationsOf(await sharedApp())
  const single = [...operations].filter(([name, op]) => {
    const [method, path] = name.split(' ')
    return method === 'GET' && path.startsWith('/v1/') && (op.security?.length ?? 0) > 0 &&
      (/\/\{[^}]+\}$/.test(path) || SINGLETONS.includes(path))
  })
  t.ok(single.length >= 30, `${single.length} single-resource GETs`)
  for (const [name, op] of single) {
    t.ok(op.responses[200]?.headers?.ETag, `${name}: ETag`)
    t.ok(op.responses[304], `${name}: 304`)
    t.ok(header(op, 'if-none-match'), `${name}: If-None-Match`)
  }
})

t.test('every PATCH and DELETE of a resource whose GET sends an ETag documents If-Match and 412', async (t) => {
  const operations = await operationsOf(await sharedApp())
  for (const [name, op] of operations) {
    const [method, path] = name.split(' ')
    if (method !== 'PATCH' && method !== 'DELETE') continue
    const get = operations.get(`GET ${path}`)
    if (!get?.responses[200]?.headers?.ETag) continue
    t.ok(op.responses[412], `${name}: 412`)
    if (NOT_YET.includes(name)) t.notOk(header(op, 'if-match'), `${name}: not yet`)
    else t.ok(header(op, 'if-match'), `${name}: If-Match`)
  }
})
