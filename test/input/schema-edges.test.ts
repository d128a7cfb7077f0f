import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { generateSync } from 'json-schema-faker'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

/**
 * Every operation of the OpenAPI document, driven to the edges its own schemas allow: each free-text field at its
 * maxLength in 4-byte characters, accents, NUL, a right-to-left override with a lone surrogate; integers and numbers
 * at their maximum; date-times in 9999; arrays at their maxItems. Each query parameter on its own takes the same
 * strings. Whatever the answer, it is never a 5xx: a column narrower than its schema, a value the database refuses or
 * a handler that trusts its input shows up here, for resources added later too. Fields with a pattern or a format
 * get a value made from it (json-schema-faker), so the request gets past validation to the service and the database.
 */

type Schema = Record<string, any>
type Document = { paths: Record<string, Record<string, Schema>>, components: { schemas: Record<string, Schema> } }

const FILLS = ['𝔘', 'é', 'a\u0000', '\u202e\ud800', 'x']
const QUERY_FILLS = ['𝔘', '\u0000']
// Operations that leave the JSON API (OAuth, MCP, raw uploads) or the store (backups, erasure) have tests of their own.
const ELSEWHERE = /oauth|mcp|uploads\/videos|backups|erasure/

/** The first `n` code points of `fill` repeated: `n` characters as a JSON schema's maxLength counts them. */
const codePoints = (fill: string, n: number) => Array.from(fill.repeat(n)).slice(0, n).join('')

function edges (doc: Document) {
  const resolve = (s: Schema | undefined): Schema | undefined => s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]) : s
  let seed = 1
  const shaped = (s: Schema) => generateSync(s, { seed: seed++ }) as string
  // Ids the run created, by collection path, so that `{id}` and `<thing>Id` name something real where they can.
  const ids = new Map<string, string>()

  function value (raw: Schema | undefined, fill: string, depth = 0): unknown {
    const s = resolve(raw)
    if (!s || depth > 5) return undefined
    if (s.const !== undefined) return s.const
    if (s.enum) return s.enum[s.enum.length - 1]
    if (s.anyOf || s.oneOf) {
      for (const alternative of s.anyOf ?? s.oneOf) {
        const v = value(alternative, fill, depth + 1)
        if (v !== undefined && v !== null) return v
      }
      return undefined
    }
    const type = Array.isArray(s.type) ? s.type.find((x: string) => x !== 'null') : s.type
    switch (type) {
      case 'string':
        if (s.format === 'date-time') return '9999-12-31T23:59:59.999Z'
        if (s.pattern || s.format) return shaped(s)
        return codePoints(fill, s.maxLength ?? 2000)
      case 'integer': return s.maximum ?? 2147483647
      case 'number': return s.maximum ?? 1e300
      case 'boolean': return true
      case 'array': {
        const items = Array.from({ length: Math.min(s.maxItems ?? 3, 30) }, () => value(s.items, fill, depth + 1)).filter((v) => v !== undefined)
        const distinct = s.uniqueItems && !resolve(s.items)?.pattern
        return distinct ? items.map((v, i) => typeof v === 'string' ? v.slice(0, -3) + String(i).padStart(3, '0') : v) : items
      }
      case 'object': {
        const out: Record<string, unknown> = {}
        for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
          const collection = '/' + name.replace(/Id$/, '').replace(/([A-Z])/g, '-$1').toLowerCase() + 's'
          const known = [...ids].find(([path]) => path.endsWith(collection))
          if (name.endsWith('Id') && known) out[name] = known[1]
          else if (name.endsWith('Id') && !(s.required ?? []).includes(name)) continue
          else {
            const v = value(property, fill, depth + 1)
            if (v !== undefined) out[name] = v
          }
        }
        return out
      }
    }
    return undefined
  }

  function url (path: string, op: Schema): string {
    let out = path
    for (const p of (op.parameters ?? []) as Schema[]) {
      if (p.in !== 'path') continue
      const s = resolve(p.schema) ?? {}
      const choices = (s.anyOf ?? []).map((x: Schema) => x.const ?? x.enum?.[0]).filter((x: unknown) => x !== undefined)
      const named = s.enum?.[0] ?? choices[0] ?? ids.get(path.slice(0, path.indexOf(`{${p.name}}`) - 1))
      out = out.replace(`{${p.name}}`, encodeURIComponent(named ?? (s.pattern ? shaped(s) : 'unknown')))
    }
    return out
  }

  return { value, url, ids }
}

async function drive (app: FastifyInstance, tenant: Tenant, clock: ReturnType<typeof manualClock>) {
  const doc: Document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const { value, url, ids } = edges(doc)
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
    if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${target.slice(0, 100)} with ${JSON.stringify(fill)}: ${res.statusCode} ${res.body.slice(0, 300)}`)
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
        for (const fill of QUERY_FILLS) await send(method, path, op, fill, { [p.name]: value(p.schema, fill) }, method !== 'get' && body ? value(body, 'x') : undefined)
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
