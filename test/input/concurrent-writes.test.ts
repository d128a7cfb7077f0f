import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documentOf, type Schema } from '../schema-values.js'

/**
 * Every write of the document with a request example, sent three times at once: a unique name, slug, code or address
 * that all three claim is decided by the database, and the two that lose get a 4xx (or the same answer), never a
 * 5xx. Resources added later are covered without being listed.
 */

const ELSEWHERE = /oauth|mcp|uploads\/videos|backups|erasure|transfer-ownership|subscription\/change/

t.test('the same write sent three times at once never answers 5xx', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const doc = await documentOf(app)
  const failures: string[] = []
  let writes = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    if (ELSEWHERE.test(path) || path.includes('{')) continue
    for (const method of ['post', 'put', 'patch']) {
      const content = (item[method] as Schema | undefined)?.requestBody?.content?.['application/json']
      const example = content?.example ?? (Object.values(content?.examples ?? {})[0] as Schema | undefined)?.value
      if (!example || typeof example !== 'object') continue
      // A fresh budget for every round: the limits have tests of their own.
      clock.advance(61_000)
      const send = () => call(app, { method: method.toUpperCase() as 'POST', url: path, key: tenant.key, store: tenant.storeId, headers: { origin: 'https://shop.example' }, payload: example })
      const answers = await Promise.all([send(), send(), send()])
      writes++
      for (const res of answers) if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    }
  }
  t.same(failures, [])
  t.ok(writes >= 25, `${writes} writes sent three times at once`)
})
