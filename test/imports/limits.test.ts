import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

const item = (fields: Record<string, unknown> = {}) => ({
  productId: 'p',
  rating: 5,
  body: 'Fine',
  authorName: 'Ann',
  writtenAt: '2020-01-01T00:00:00Z',
  ...fields
})

t.test('imported reviews dated off the calendar or outside 1970-9999 are per-item errors and the rest are stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const bad = ['2027-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '2023-02-29T12:00:00Z', '9999-12-31T23:59:60Z']
  const items = [
    ...bad.map((writtenAt) => item({ writtenAt })),
    item({ writtenAt: '9999-12-31T23:59:59.999Z' }),
    item({ writtenAt: '2024-02-29T12:00:00+14:00' })
  ]
  const res = (await call(app, { method: 'POST', url: '/v1/imports', ...as, payload: { type: 'reviews', items } })).json()
  t.match(res, { received: 7, imported: 2, failed: 5 })
  t.same(res.errors.map((e: { index: number }) => e.index), [0, 1, 2, 3, 4])
  t.match(res.errors[0].message, /writtenAt/)
  const reviews = (await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json()
  t.same(reviews.data.map((r: { writtenAt: string }) => r.writtenAt), ['9999-12-31T23:59:59.999Z', '2024-02-28T22:00:00.000Z'])
})

t.test('imported reviews over a limit, or with unstorable text, are per-item errors and the rest are stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const payload = JSON.stringify({
    type: 'reviews',
    items: [
      item({ body: 'x'.repeat(10_001) }),
      item({ productId: 'p'.repeat(192) }),
      item({ title: 't'.repeat(301) }),
      item({ body: 'LONE' }),
      item({ body: '😀'.repeat(10_000), authorName: '😀'.repeat(200), productId: '😀'.repeat(191) })
    ]
  }).replace('LONE', '\\udc00')
  const res = (await call(app, { method: 'POST', url: '/v1/imports', ...as, payload, headers: { 'content-type': 'application/json' } }))
    .json()
  t.match(res, { received: 5, imported: 1, failed: 4 })
  t.same(res.errors.map((e: { index: number, code: string }) => [e.index, e.code]), [[0, 'invalid_item'], [1, 'invalid_item'], [
    2,
    'invalid_item'
  ], [3, 'invalid_item']])
  const [stored] = (await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().data
  t.equal(stored.body, '😀'.repeat(10_000))
})
