import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documentOf, schemaValues, type Schema } from '../schema-values.js'

/**
 * Tenant isolation for every operation of the document that names a resource by id: an organization creates one of
 * each resource it can, then another organization's owner key calls every such operation with those ids, on its own
 * store. Nothing answers 2xx, and afterwards the first organization still reads each resource. Resources added
 * later are covered without being listed.
 */

const ELSEWHERE = /oauth|mcp|uploads\/videos|backups|erasure/

t.test('no operation reaches another organization\'s resource by its id', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const owner = await makeTenant(app)
  const other = await makeTenant(app)
  const doc = await documentOf(app)
  const { value, url, ids } = schemaValues(doc)
  const send = async (tenant: typeof owner, method: string, target: string, payload?: unknown) => {
    // A fresh budget for every request: the limits have tests of their own.
    clock.advance(61_000)
    return call(app, { method: method.toUpperCase() as 'POST', url: target, key: tenant.key, store: tenant.storeId, headers: { origin: 'https://shop.example' }, payload: payload as object })
  }

  // One of each resource the owner's organization can create, from the document's own examples (twice: a review
  // needs its product first), then an id of each listed collection.
  const exampleOf = (op: Schema | undefined) => {
    const content = op?.requestBody?.content?.['application/json']
    return content?.example ?? (Object.values(content?.examples ?? {})[0] as Schema | undefined)?.value
  }
  const withKnownIds = (body: Schema) => Object.fromEntries(Object.entries(body).map(([name, v]) => {
    const collection = '/' + name.replace(/Id$/, '').replace(/([A-Z])/g, '-$1').toLowerCase() + 's'
    const known = name.endsWith('Id') ? [...ids].find(([path]) => path.endsWith(collection)) : undefined
    return [name, known ? known[1] : v]
  }))
  for (let pass = 0; pass < 2; pass++) {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (ELSEWHERE.test(path) || path.includes('{')) continue
      for (const method of ['post', 'put']) {
        const example = exampleOf(item[method])
        if (!example || typeof example !== 'object' || Array.isArray(example)) continue
        const res = await send(owner, method, path, withKnownIds(example))
        if (res.statusCode === 201 && typeof res.json().id === 'string') ids.set(path, res.json().id)
      }
    }
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    const member = Object.keys(doc.paths).map((p) => p.startsWith(`${path}/{`) ? /^\/\{(\w+)\}$/.exec(p.slice(path.length)) : null).find(Boolean)
    if (ELSEWHERE.test(path) || path.includes('{') || ids.has(path) || !item.get || !member) continue
    const first = (await send(owner, 'get', path)).json().data?.[0]?.[member[1]]
    if (typeof first === 'string') ids.set(path, first)
  }
  t.ok(ids.size >= 15, `${ids.size} resources created: ${[...ids.keys()].join(', ')}`)

  const reached: string[] = []
  const members = Object.entries(doc.paths).filter(([path]) => !ELSEWHERE.test(path) && ids.has(path.slice(0, path.indexOf('/{'))))
  for (const [path, item] of members) {
    for (const [method, op] of Object.entries(item) as Array<[string, Schema]>) {
      if (method === 'parameters') continue
      // A path naming a fixed value (a platform, a template) is a setting of the caller's own store, not an id.
      const fixed = (op.parameters ?? []).some((p: Schema) => p.in === 'path' && (p.schema?.enum || p.schema?.anyOf))
      if (fixed) continue
      const body = op.requestBody?.content?.['application/json']?.schema
      const target = url(path, op)
      const res = await send(other, method, target, body ? value(body, 'x') : undefined)
      if (res.statusCode < 300) reached.push(`${method.toUpperCase()} ${target}: ${res.statusCode}`)
    }
  }
  t.same(reached, [], 'every call with another organization\'s id is refused')
  t.ok(members.length >= 10, `${members.length} member paths tried`)

  const lost: string[] = []
  for (const [collection, id] of ids) {
    if (!doc.paths[`${collection}/{id}`]?.get) continue
    const res = await send(owner, 'get', `${collection}/${id}`)
    if (res.statusCode !== 200) lost.push(`${collection}/${id}: ${res.statusCode}`)
  }
  t.same(lost, [], 'the owner still reads every resource')
})
