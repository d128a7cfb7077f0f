import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documentOf, memberOperations, schemaValues, seedFromExamples } from '../schema-values.js'

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
    return call(app, {
      method: method.toUpperCase() as 'POST',
      url: target,
      key: tenant.key,
      store: tenant.storeId,
      headers: { origin: 'https://shop.example' },
      payload: payload as object
    })
  }

  await seedFromExamples(doc, ids, (method, target, payload) => send(owner, method, target, payload), ELSEWHERE)
  t.ok(ids.size >= 15, `${ids.size} resources created: ${[...ids.keys()].join(', ')}`)

  const reached: string[] = []
  const members = memberOperations(doc, ids, ELSEWHERE)
  for (const { path, method, op } of members) {
    const body = op.requestBody?.content?.['application/json']?.schema
    const target = url(path, op)
    const res = await send(other, method, target, body ? value(body, 'x') : undefined)
    if (res.statusCode < 300) reached.push(`${method.toUpperCase()} ${target}: ${res.statusCode}`)
  }
  t.same(reached, [], 'every call with another organization\'s id is refused')
  t.ok(members.length >= 30, `${members.length} member operations tried`)

  const lost: string[] = []
  for (const [collection, id] of ids) {
    if (!doc.paths[`${collection}/{id}`]?.get) continue
    const res = await send(owner, 'get', `${collection}/${id}`)
    if (res.statusCode !== 200) lost.push(`${collection}/${id}: ${res.statusCode}`)
  }
  t.same(lost, [], 'the owner still reads every resource')
})
