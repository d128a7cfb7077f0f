import t from 'tap'
import { memberOperations, schemaValues, seedFromExamples } from '../schema-values.js'
import { drivenStore, ELSEWHERE } from './driven.js'

/**
 * Changes (PATCH) of different fields of one resource sent at once: each must hold, as if sent one after the other.
 * A change that reads the row, merges its fields and writes the whole row back from a stale read loses the other's
 * field. Driven from the document, so resources added later are covered without being listed.
 */

const STAMPS = new Set(['updatedAt', 'createdAt', 'lastUsedAt'])
const withoutStamps = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutStamps)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).filter(([k]) => !STAMPS.has(k)).map(([k, x]) => [k, withoutStamps(x)]))
      : v

t.test('changes of different fields of one resource sent at once all hold, as if sent one after the other', async (t) => {
  const { doc, send } = await drivenStore(t)
  const { url, ids, value } = schemaValues(doc)
  await seedFromExamples(doc, ids, send, ELSEWHERE)
  const members = memberOperations(doc, ids, ELSEWHERE)
  // PATCH only: a PUT replaces the whole resource, so of two at once the later wins by design.
  const changes = members.filter((o) => o.method === 'patch' && members.some((g) => g.path === o.path && g.method === 'get'))
  const lost: string[] = []
  const covered: string[] = []
  for (const { path, method, op } of changes) {
    const target = url(path, op)
    // Two values each field accepts on its own (the stored one, generated ones), so that every change changes it.
    const schema = op.requestBody?.content?.['application/json']?.schema
    const body = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema
    const stored = (await send('get', target)).json()
    const choices: Record<string, unknown[]> = {}
    for (const [field, property] of Object.entries(body?.properties ?? {})) {
      if (/Ids?$/.test(field)) continue
      const accepted: unknown[] = []
      for (
        const candidate of [
          stored[field],
          value(property as never, 'y'),
          value(property as never, 'z'),
          typeof stored[field] === 'boolean' ? !stored[field] : undefined
        ]
      ) {
        if (candidate === undefined || accepted.some((a) => JSON.stringify(a) === JSON.stringify(candidate))) continue
        if ((await send(method, target, { [field]: candidate })).statusCode === 200) accepted.push(candidate)
        if (accepted.length === 2) break
      }
      if (accepted.length === 2) choices[field] = accepted
    }
    const fields = Object.keys(choices)
    if (fields.length < 2) continue
    covered.push(path)
    for (let round = 0; round < 3; round++) {
      const from = round % 2
      for (const field of fields) await send(method, target, { [field]: choices[field][from] })
      const answers = await Promise.all(fields.map((field) => send(method, target, { [field]: choices[field][1 - from] })))
      const together = withoutStamps((await send('get', target)).json())
      for (const field of fields) await send(method, target, { [field]: choices[field][1 - from] })
      const inTurn = withoutStamps((await send('get', target)).json())
      if (JSON.stringify(together) !== JSON.stringify(inTurn)) lost.push(`${method.toUpperCase()} ${path} (${fields.join(', ')}; ${answers.map((r) => r.statusCode).join(', ')}): ${JSON.stringify(together).slice(0, 200)}`)
    }
  }
  t.same(lost, [])
  t.ok(covered.length >= 7, `${covered.length} resources changed two or more fields at once: ${covered.join(', ')}`)
})
