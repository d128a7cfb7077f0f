import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { documentOf, schemaValues, type Schema } from '../schema-values.js'

/**
 * Every operation of the OpenAPI document, driven to the edges its own schemas allow: each free-text field at its
 * maxLength in 4-byte characters, accents, NUL, a right-to-left override with a lone surrogate; integers and numbers
 * at their maximum; date-times in 9999; arrays at their maxItems. Each query parameter on its own takes the same
 * strings. Whatever the answer, it is never a 5xx: a column narrower than its schema, a value the database refuses or
 * a handler that trusts its input shows up here, for resources added later too. Fields with a pattern or a format
 * get a value made from it (test/schema-values.ts), so the request gets past validation to the service and the database.
 *
 * bundle-weight: 35 (scripts/test.ts: its thousands of requests take as long as about 35 ordinary tests)
 */

const FILLS = ['𝔘', 'é', 'a\u0000', '\u202e\ud800', 'x']
const QUERY_FILLS = ['𝔘', '\u0000']
// Operations that leave the JSON API (OAuth, MCP, raw uploads) or the store (backups, erasure) have tests of their own.
const ELSEWHERE = /oauth|mcp|uploads\/videos|backups|erasure/

async function drive (app: FastifyInstance, tenant: Tenant, clock: ReturnType<typeof manualClock>) {
  const doc = await documentOf(app)
  const { value, url, ids } = schemaValues(doc)
  const failures: string[] = []
  let accepted = 0
  async function send (method: string, path: string, op: Schema, fill: string, query?: Record<string, unknown>, payload?: unknown) {
    const target = url(path, op)
    // A fresh budget for every request: the limits have tests of their own.
    clock.advance(61_000)
    const res = await call(app, {
      method: method.toUpperCase() as 'POST',
      url: target,
      query: query as never,
      key: tenant.key,
      store: tenant.storeId,
      headers: { origin: 'https://shop.example' },
      payload: payload as object
    })
    if (res.statusCode >= 500) {
      failures.push(
        `${method.toUpperCase()} ${target.slice(0, 100)} with ${JSON.stringify(fill)}: ${res.statusCode} ${res.body.slice(0, 300)}`
      )
    }
    if (method !== 'get' && res.statusCode < 300) accepted++
    if (res.statusCode === 201 && !path.includes('{')) {
      const id = res.json().id
      if (typeof id === 'string') ids.set(path, id)
    }
  }
  // Collections before their members, so members can name what the run created.
  const paths = Object.entries(doc.paths).sort(([a], [b]) => a.split('{').length - b.split('{').length)
  for (const [path, item] of paths) {
    if (ELSEWHERE.test(path)) continue
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || method === 'delete') continue
      const body = op.requestBody?.content?.['application/json']?.schema
      if (method !== 'get' && body) {
        for (const fill of FILLS) await send(method, path, op, fill, undefined, value(body, fill))
      }
      for (const p of (op.parameters ?? []) as Schema[]) {
        if (p.in !== 'query') continue
        for (const fill of QUERY_FILLS) {
          await send(method, path, op, fill, { [p.name]: value(p.schema, fill) }, method !== 'get' && body ? value(body, 'x') : undefined)
        }
      }
    }
  }
  return { failures, accepted }
}

t.test('no operation answers 5xx to the edges of its own schemas', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const { failures, accepted } = await drive(app, tenant, clock)
  t.same(failures, [], 'no 5xx')
  // The edges must reach services and the database, not stop at validation, or the check above proves little.
  t.ok(accepted >= 100, `edge values written by ${accepted} accepted requests`)
})
