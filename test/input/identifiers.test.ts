import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant, makeKey } from '../factories.js'

/** The same id with its letters' case swapped: another id, which must not find the first one's row. */
const swapCase = (id: string) => [...id].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')

t.test('a review id differing only in case or by a trailing space finds nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const imported = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: { type: 'reviews', items: [{ productId: 'p', rating: 5, body: 'ok', authorName: 'Ann', writtenAt: '2026-01-01T00:00:00Z' }] }
  })
  t.equal(imported.statusCode, 201)
  const [review] = (await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().data
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${review.id}`, ...as })).statusCode, 200)
  for (const variant of [swapCase(review.id), `${review.id}%20`]) {
    const res = await call(app, { method: 'GET', url: `/v1/reviews/${variant}`, ...as })
    t.equal(res.statusCode, 404, variant)
    t.equal(res.json().code, 'not_found')
  }
  const filtered = (await call(app, { method: 'GET', url: '/v1/reviews?productId=P', ...as })).json()
  t.equal(filtered.meta.total, 0, 'the productId filter compares exactly too')
})

t.test('an API key id differing only in case finds nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const res = await call(app, { method: 'GET', url: `/v1/api-keys/${swapCase(key.id)}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 404)
})

t.test('a store id differing only in case is an unknown store', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: swapCase(tenant.storeId) })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
})
