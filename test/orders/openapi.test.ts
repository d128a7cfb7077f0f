import t from 'tap'
import { build } from '../helper.js'

t.test('the OpenAPI document lists the catalog routes and describes the review request transitions', async (t) => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  for (
    const [path, method] of [
      ['/v1/products', 'put'],
      ['/v1/orders', 'put'],
      ['/v1/orders/{platformOrderId}', 'get'],
      ['/v1/reviews', 'get'],
      ['/v1/reviews', 'post'],
      ['/v1/reviews/{id}/helpful', 'post'],
      ['/v1/imports', 'post'],
      ['/v1/uploads/image', 'post']
    ]
  ) {
    t.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`)
  }
  const text = JSON.stringify(doc.paths['/v1/orders'].put)
  for (const state of ['scheduled', 'sent', 'failed', 'skipped']) t.match(text, state)
  t.match(text, /excluded/)
  t.same(doc.paths['/v1/reviews'].post.security, [], 'the storefront form needs no credential')
})
