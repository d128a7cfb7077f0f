import t from 'tap'
import { drivenStore } from './driven.js'

/**
 * JSON nested ten thousand levels deep parses (V8's parser is not recursive), but anything that walks it
 * recursively afterwards overflows the stack. Every operation that takes a JSON body must refuse it as a bad
 * request, never answer 500.
 */
const DEEP = {
  array: '['.repeat(10_000) + ']'.repeat(10_000),
  object: '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  field: '{"name":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}'
}

t.test('a JSON body nested 10,000 levels deep is a 4xx for every operation that takes a body, never a 5xx', async (t) => {
  const { app, clock, tenant, doc } = await drivenStore(t)
  const failures: string[] = []
  let sent = 0
  for (const [path, item] of Object.entries(doc.paths) as Array<[string, Record<string, any>]>) {
    for (const method of ['post', 'put', 'patch']) {
      if (!item[method]?.requestBody?.content?.['application/json']) continue
      const url = path.replace(/\{\w+\}/g, 'x')
      for (const [shape, payload] of Object.entries(DEEP)) {
        clock.advance(61_000) // a fresh budget for every request: the limits have tests of their own
        const res = await app.inject({
          method: method.toUpperCase() as 'POST',
          url,
          payload,
          headers: {
            authorization: `Bearer ${tenant.key}`,
            'x-store-env-id': tenant.storeId,
            'content-type': 'application/json',
            'x-forwarded-for': `198.51.100.${sent % 250}`
          }
        })
        sent++
        if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${path} (${shape}): ${res.statusCode} ${res.body.slice(0, 120)}`)
      }
    }
  }
  t.same(failures, [])
  t.ok(sent >= 150, `${sent} deep bodies sent`)
})

t.test('a bulk body of the wrong shape names the type wanted', async (t) => {
  const { tenant, app } = await drivenStore(t)
  const put = (payload: string) =>
    app.inject({
      method: 'PUT',
      url: '/v1/products',
      payload,
      headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId, 'content-type': 'application/json' }
    })
  t.match((await put('[]')).json(), { code: 'invalid_request', errors: [{ message: 'must be an object' }] })
  t.match((await put('{"products":{}}')).json(), { code: 'invalid_request', errors: [{ path: 'products', message: 'must be an array' }] })
})
