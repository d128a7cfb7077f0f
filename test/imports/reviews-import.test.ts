import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

const item = (i: number) => ({
  productId: `p${i % 7}`,
  rating: (i % 5) + 1,
  body: `Review ${i}`,
  authorName: `Author ${i}`,
  authorEmail: `a${i}@example.test`,
  writtenAt: new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString()
})

t.test('an import stores good items with their original writtenAt and reports bad ones by index', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: { type: 'reviews', items: [item(1), { ...item(2), rating: 9 }, { ...item(3), writtenAt: 'last week' }, item(4)] }
  })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body, { id: /^imp_/, type: 'reviews', status: 'partial', received: 4, imported: 2, failed: 2 })
  t.same(body.errors.map((e: { index: number, code: string }) => [e.index, e.code]), [[1, 'invalid_item'], [2, 'invalid_item']])
  const again = (await call(app, { method: 'GET', url: `/v1/imports/${body.id}`, ...as })).json()
  t.same(again, body)
  const reviews = (await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().data
  t.same(reviews.map((r: { writtenAt: string, source: string, status: string }) => [r.writtenAt, r.source, r.status]), [
    [item(4).writtenAt, 'import', 'published'],
    [item(1).writtenAt, 'import', 'published']
  ])
  const created = await app.db('events').where({ store_env_id: tenant.storeId, type: 'review.created' }).count({ n: '*' })
  t.equal(Number(created[0].n), 2)
})

t.test('1,000 reviews import in one call and 1,001 are refused with batch_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const ok = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: { type: 'reviews', items: Array.from({ length: 1000 }, (_, i) => item(i)) }
  })
  t.match(ok.json(), { received: 1000, imported: 1000, failed: 0 })
  const tooMany = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: { type: 'reviews', items: Array.from({ length: 1001 }, (_, i) => item(i)) }
  })
  t.equal(tooMany.statusCode, 400)
  t.equal(tooMany.json().code, 'batch_too_large')
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().meta.total, 1000)
})

t.test('an import of another type is refused with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'products', items: [] }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
})

t.test('one store cannot read another store\'s import', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const created =
    (await call(app, { method: 'POST', url: '/v1/imports', key: a.key, store: a.storeId, payload: { type: 'reviews', items: [item(1)] } }))
      .json()
  const res = await call(app, { method: 'GET', url: `/v1/imports/${created.id}`, key: b.key, store: b.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})

const listed = { productId: 'sku-1', rating: 5, body: 'Lovely', authorName: 'Ann', writtenAt: '2025-06-01T10:00:00Z' }

t.test('GET /imports lists the store\'s imports newest first in the page envelope, without per-item errors', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const first = (await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items: [listed, { rating: 9 }] }
  })).json()
  const second = (await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items: [listed] }
  })).json()
  await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: other.key,
    store: other.storeId,
    payload: { type: 'reviews', items: [listed] }
  })
  const res = await call(app, { method: 'GET', url: '/v1/imports?limit=500', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.data.map((i: { id: string }) => i.id).sort(), [first.id, second.id].sort(), 'only this store\'s imports')
  t.match(body.meta, { total: 2, page: 1, limit: 100 })
  t.match(body.data.find((i: { id: string }) => i.id === first.id), { received: 2, imported: 1, failed: 1 })
  t.notOk('errors' in body.data[0])
})

t.test('GET /imports filters by updatedSince and refuses a date outside 1970-9999', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items: [listed] }
  })
  const later = await call(app, {
    method: 'GET',
    url: '/v1/imports?updatedSince=2999-01-01T00:00:00Z',
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(later.json().data, [])
  const bad = await call(app, {
    method: 'GET',
    url: '/v1/imports?updatedSince=10000-01-01T00:00:00Z',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(bad.statusCode, 400)
})
