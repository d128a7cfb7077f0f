import type { FastifyInstance } from 'fastify'
import { generateSync } from 'json-schema-faker'

/**
 * Values made from the OpenAPI document's own schemas, for tests that drive every operation (input edges, tenant
 * isolation): free text at its maxLength in a given character, numbers at their maximum, date-times in 9999, arrays
 * at maxItems; fields with a pattern or a format get a value made from it (json-schema-faker), so a request gets
 * past validation. Ids a run created are kept by collection path, so `{id}` and `<thing>Id` name something real.
 */

export type Schema = Record<string, any>
export type Document = { paths: Record<string, Record<string, Schema>>, components: { schemas: Record<string, Schema> } }

export async function documentOf (app: FastifyInstance): Promise<Document> {
  return (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
}

/** The id the run created for a `<thing>Id` field (`webPageId` → the one made at `/v1/web-pages`), if any. */
function knownId (ids: Map<string, string>, name: string): string | undefined {
  if (!name.endsWith('Id')) return undefined
  const collection = '/' + name.replace(/Id$/, '').replace(/([A-Z])/g, '-$1').toLowerCase() + 's'
  return [...ids].find(([path]) => path.endsWith(collection))?.[1]
}

/** The first `n` code points of `fill` repeated: `n` characters as a JSON schema's maxLength counts them. */
const codePoints = (fill: string, n: number) => Array.from(fill.repeat(n)).slice(0, n).join('')

export function schemaValues (doc: Document) {
  const resolve = (s: Schema | undefined): Schema | undefined => s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]) : s
  let seed = 1
  const shaped = (s: Schema) => generateSync(s, { seed: seed++ }) as string
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
        const items = Array.from({ length: Math.min(s.maxItems ?? 3, 30) }, () => value(s.items, fill, depth + 1)).filter((v) =>
          v !== undefined
        )
        const distinct = s.uniqueItems && !resolve(s.items)?.pattern
        return distinct ? items.map((v, i) => typeof v === 'string' ? v.slice(0, -3) + String(i).padStart(3, '0') : v) : items
      }
      case 'object': {
        const out: Record<string, unknown> = {}
        for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
          const known = knownId(ids, name)
          if (known) out[name] = known
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

/** A request body the document gives as its example (the first of `examples`), if any. */
export function exampleOf (op: Schema | undefined): Schema | undefined {
  const content = op?.requestBody?.content?.['application/json']
  return content?.example ?? (Object.values(content?.examples ?? {})[0] as Schema | undefined)?.value
}

type Send = (method: string, target: string, payload?: unknown) => Promise<{ statusCode: number, json: () => any }>

/**
 * One of each resource a store can hold, made from the document's own request examples (twice over: a review needs
 * its product first), then an id of each listed collection; kept in `ids` by collection path. `skip` leaves out
 * paths a test does not drive.
 */
export async function seedFromExamples (doc: Document, ids: Map<string, string>, send: Send, skip: RegExp): Promise<void> {
  const withKnownIds = (body: Schema) => Object.fromEntries(Object.entries(body).map(([name, v]) => [name, knownId(ids, name) ?? v]))
  for (let pass = 0; pass < 2; pass++) {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (skip.test(path) || path.includes('{')) continue
      for (const method of ['post', 'put']) {
        const example = exampleOf(item[method])
        if (!example || typeof example !== 'object' || Array.isArray(example)) continue
        const res = await send(method, path, withKnownIds(example))
        if (res.statusCode === 201 && typeof res.json().id === 'string') ids.set(path, res.json().id)
      }
    }
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    const member = Object.keys(doc.paths).map((p) => p.startsWith(`${path}/{`) ? /^\/\{(\w+)\}$/.exec(p.slice(path.length)) : null).find(
      Boolean
    )
    if (skip.test(path) || path.includes('{') || ids.has(path) || !item.get || !member) continue
    const first = (await send('get', path)).json().data?.[0]?.[member[1]]
    if (typeof first === 'string') ids.set(path, first)
  }
}

/** The operations on members of the collections in `ids`, but those whose path names a fixed value (a platform). */
export function memberOperations (
  doc: Document,
  ids: Map<string, string>,
  skip: RegExp
): Array<{ path: string, method: string, op: Schema }> {
  const out = []
  for (const [path, item] of Object.entries(doc.paths)) {
    if (skip.test(path) || !ids.has(path.slice(0, path.indexOf('/{')))) continue
    for (const [method, op] of Object.entries(item) as Array<[string, Schema]>) {
      if (method === 'parameters') continue
      if ((op.parameters ?? []).some((p: Schema) => p.in === 'path' && (p.schema?.enum || p.schema?.anyOf))) continue
      out.push({ path, method, op })
    }
  }
  return out
}
