import t from 'tap'
import { exampleOf, memberOperations, schemaValues, seedFromExamples } from '../schema-values.js'
import { drivenStore, ELSEWHERE } from './driven.js'

/**
 * Writes sent three times at once: a unique name, slug, code or address that all three claim is decided by the
 * database, and the two that lose get a 4xx (or the same answer), never a 5xx; the same for three changes, actions
 * or deletes of one resource. Driven from the document, so resources added later are covered without being listed.
 */

t.test('the same write sent three times at once never answers 5xx', async (t) => {
  const { doc, send } = await drivenStore(t)
  const failures: string[] = []
  let writes = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    if (ELSEWHERE.test(path) || path.includes('{')) continue
    for (const method of ['post', 'put', 'patch']) {
      const example = exampleOf(item[method])
      if (!example || typeof example !== 'object') continue
      const answers = await Promise.all([1, 2, 3].map(() => send(method, path, example)))
      writes++
      for (const res of answers) {
        if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`)
      }
    }
  }
  t.same(failures, [])
  t.ok(writes >= 25, `${writes} writes sent three times at once`)
})

t.test('the same change, action or delete of one resource sent three times at once never answers 5xx', async (t) => {
  const { doc, send } = await drivenStore(t)
  const { value, url, ids } = schemaValues(doc)
  await seedFromExamples(doc, ids, send, ELSEWHERE)
  const failures: string[] = []
  // Deletes last, so the changes and actions find their resources.
  const operations = memberOperations(doc, ids, ELSEWHERE).filter((o) => o.method !== 'get').sort((a, b) =>
    Number(a.method === 'delete') - Number(b.method === 'delete')
  )
  for (const { path, method, op } of operations) {
    const target = url(path, op)
    const payload = exampleOf(op) ?? (op.requestBody ? value(op.requestBody.content?.['application/json']?.schema, 'x') : undefined)
    const answers = await Promise.all([1, 2, 3].map(() => send(method, target, payload)))
    for (const res of answers) {
      if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${target}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    }
  }
  t.same(failures, [])
  t.ok(operations.length >= 25, `${operations.length} operations sent three times at once`)
})

t.test('a delete sent three times at once deletes once: one answer succeeds unless deleting again succeeds too', async (t) => {
  const { doc, send } = await drivenStore(t)
  const { url, ids } = schemaValues(doc)
  await seedFromExamples(doc, ids, send, ELSEWHERE)
  const twice: string[] = []
  let deleted = 0
  for (const { path, op } of memberOperations(doc, ids, ELSEWHERE).filter((o) => o.method === 'delete')) {
    const target = url(path, op)
    const answers = await Promise.all([1, 2, 3].map(() => send('delete', target)))
    const succeeded = answers.filter((r) => r.statusCode < 300).length
    if (succeeded === 0) continue
    deleted++
    // An operation whose repeat succeeds (retiring, unsubscribing) is idempotent by design; any other deletes once.
    if ((await send('delete', target)).statusCode >= 300 && succeeded > 1) {
      twice.push(`${target}: ${answers.map((r) => r.statusCode).join(', ')}`)
    }
  }
  t.same(twice, [])
  t.ok(deleted >= 10, `${deleted} resources deleted`)
})

t.test('a change and a delete of one resource sent at once never answer 5xx, and no change is announced after the delete', async (t) => {
  const { app, tenant, doc, send } = await drivenStore(t)
  const failures: string[] = []
  let pairs = 0
  // Rounds, each on freshly made resources: which of the two comes first is up to the database.
  for (let round = 0; round < 3; round++) {
    const { value, url, ids } = schemaValues(doc)
    await seedFromExamples(doc, ids, send, ELSEWHERE)
    const operations = memberOperations(doc, ids, ELSEWHERE)
    for (const { path, op: remove } of operations.filter((o) => o.method === 'delete')) {
      const change = operations.find((o) => o.path === path && (o.method === 'patch' || o.method === 'put'))
      if (!change) continue
      const target = url(path, remove)
      const id = decodeURIComponent(target.split('/').pop()!)
      const payload = exampleOf(change.op) ?? value(change.op.requestBody?.content?.['application/json']?.schema, 'x')
      const [changed, deleted] = await Promise.all([send(change.method, target, payload), send('delete', target)])
      pairs++
      for (const res of [changed, deleted]) {
        if (res.statusCode >= 500) {
          failures.push(`${change.method.toUpperCase()}+DELETE ${path}: ${res.statusCode} ${res.body.slice(0, 200)}`)
        }
      }
      if (deleted.statusCode !== 204 || changed.statusCode >= 300) continue
      // Straight from the log, newest first (event ids increase with time within a store).
      const rows = await app.db('events').where({ store_env_id: tenant.storeId }).where('data', 'like', `%${id}%`).orderBy('id', 'desc')
        .select('type', 'data')
      const last = rows.find((row: { data: string }) => JSON.parse(row.data).id === id)
      if (last && !last.type.endsWith('.deleted')) failures.push(`${path}: ${last.type} after the delete`)
    }
  }
  t.same(failures, [])
  t.ok(pairs >= 24, `${pairs} changes sent with a delete`)
})
