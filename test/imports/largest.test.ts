import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { IMPORT_BODY_LIMIT, MAX_IMPORT_ITEMS } from '../../src/modules/imports/imports.schemas.js'

/** bundle-weight: 6 (one test that sends ten megabytes and stores a thousand reviews) */

const item = (i: number, fields: Record<string, unknown> = {}) => ({
  productId: `p-${i}`,
  rating: 4,
  body: `Review ${i}: ${'lorem ipsum '.repeat(900)}`.slice(0, 10_000),
  authorName: 'Ann',
  writtenAt: '2024-05-01T10:00:00Z',
  ...fields
})

t.test('the largest import the contract allows, 1,000 items with 10,000-character bodies, is accepted whole', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const items = Array.from({ length: MAX_IMPORT_ITEMS }, (_, i) => item(i))
  t.equal(items[0].body.length, 10_000)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items }
  })
  t.equal(res.statusCode, 201, res.body.slice(0, 200))
  t.match(res.json(), { status: 'completed', received: 1000, imported: 1000, failed: 0 })
})

t.test('an import with every text at its maxLength in 4-byte characters fits under the import body limit', async (t) => {
  const wide = (n: number) => '𝔘'.repeat(n)
  const widest = item(0, {
    productId: wide(191),
    title: wide(300),
    body: wide(10_000),
    authorName: wide(200),
    orderId: wide(191),
    authorEmail: `${wide(300)}@example.com`,
    status: 'published'
  })
  const size = Buffer.byteLength(JSON.stringify({ type: 'reviews', items: Array.from({ length: MAX_IMPORT_ITEMS }, () => widest) }))
  t.ok(size < IMPORT_BODY_LIMIT, `${size} bytes under ${IMPORT_BODY_LIMIT}`)
})

t.test('an import body over the import limit gets 413 payload_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const payload = `{"type":"reviews","items":[],"pad":"${'x'.repeat(IMPORT_BODY_LIMIT)}"}`
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload,
    headers: { 'content-type': 'application/json' }
  })
  t.equal(res.statusCode, 413)
  t.equal(res.json().code, 'payload_too_large')
})
