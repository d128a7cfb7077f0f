import t from 'tap'
import { readFileSync } from 'node:fs'
import { deflateSync, crc32 } from 'node:zlib'
import { sharedApp, errorBody } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

/** A real 2x2 RGB PNG, built chunk by chunk. */
function png (): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(2, 0)
  header.writeUInt32BE(2, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255])
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0))
  ])
}

const JPEG = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url))

function multipart (filename: string, type: string, bytes: Buffer, field = 'image') {
  const boundary = '----eh-test-boundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

t.test('a PNG and a JPEG are stored and served back by the returned URL', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [name, type, bytes] of [['a.png', 'image/png', png()], ['b.jpg', 'image/jpeg', JPEG]] as const) {
    const res = await storefront(app, { url: '/v1/uploads/image', store: tenant.storeId, ...multipart(name, type, bytes) })
    t.equal(res.statusCode, 201, name)
    const { id, url } = res.json()
    t.match(id, /^upl_/)
    t.equal(url, `http://127.0.0.1:3000/v1/uploads/${id}`)
    const served = await app.inject({ method: 'GET', url: new URL(url).pathname })
    t.equal(served.statusCode, 200)
    t.equal(served.headers['content-type'], type)
    t.ok(served.rawPayload.equals(bytes), 'the same bytes come back')
  }
})

t.test('a text file renamed .png is refused with unsupported_media_type', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await storefront(app, {
    url: '/v1/uploads/image',
    store: tenant.storeId,
    ...multipart('notes.png', 'image/png', Buffer.from('just some text, honestly\n'.repeat(20)))
  })
  t.equal(res.statusCode, 415)
  t.equal(res.json().code, 'unsupported_media_type')
  t.equal(Number((await app.db('uploads').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 0)
})

t.test('an 11 MB image is refused with payload_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const big = Buffer.concat([png(), Buffer.alloc(11 * 1024 * 1024)])
  const res = await storefront(app, { url: '/v1/uploads/image', store: tenant.storeId, ...multipart('big.png', 'image/png', big) })
  t.equal(res.statusCode, 413)
  t.equal(res.json().code, 'payload_too_large')
})

t.test('the image must come in the multipart field "image"', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await storefront(app, { url: '/v1/uploads/image', store: tenant.storeId, ...multipart('a.png', 'image/png', png(), 'file') })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
})

t.test('an image upload whose multipart Content-Type names no boundary is refused with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { payload } = multipart('a.png', 'image/png', png())
  const res = await storefront(app, {
    url: '/v1/uploads/image',
    store: tenant.storeId,
    payload,
    headers: { 'content-type': 'multipart/form-data' }
  })
  t.equal(res.statusCode, 400, res.body)
  t.same(errorBody(res), {
    message: 'The multipart body cannot be read: its Content-Type names no boundary (multipart/form-data; boundary=…)',
    code: 'invalid_request'
  })
})

t.test('an image upload cut off before its closing boundary is refused with invalid_request and not stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { payload, headers } = multipart('a.png', 'image/png', png())
  const res = await storefront(app, {
    url: '/v1/uploads/image',
    store: tenant.storeId,
    payload: payload.subarray(0, payload.length - 30),
    headers
  })
  t.equal(res.statusCode, 400, res.body)
  t.same(errorBody(res), {
    message: 'The multipart body cannot be read: it is malformed or ends before its closing boundary',
    code: 'invalid_request'
  })
  t.equal(Number((await app.db('uploads').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 0)
})

t.test('an upload from a refused origin is not stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await storefront(app, {
    url: '/v1/uploads/image',
    store: tenant.storeId,
    origin: 'https://evil.example',
    ...multipart('a.png', 'image/png', png())
  })
  t.equal(res.json().code, 'origin_not_allowed')
})

t.test('a review can carry the store\'s uploads as media but not another store\'s', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const mine = (await storefront(app, { url: '/v1/uploads/image', store: tenant.storeId, ...multipart('a.png', 'image/png', png()) }))
    .json()
  const theirs = (await storefront(app, { url: '/v1/uploads/image', store: other.storeId, ...multipart('a.png', 'image/png', png()) }))
    .json()
  await app.inject({
    method: 'PUT',
    url: '/v1/products',
    headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId },
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  const review = { productId: 'p1', rating: 4, body: 'See photo', authorName: 'Ann', authorEmail: 'ann@example.test' }
  const ok = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: { ...review, mediaIds: [mine.id] } })
  t.equal(ok.statusCode, 201)
  const stored = await app.inject({
    method: 'GET',
    url: `/v1/reviews/${ok.json().id}`,
    headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
  })
  t.same(stored.json().media, [{ id: mine.id, type: 'image', url: mine.url, mime: 'image/png' }])
  const refused = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: { ...review, mediaIds: [theirs.id] } })
  t.equal(refused.statusCode, 400)
})

t.test('a review naming an empty media id is refused with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await app.inject({
    method: 'PUT',
    url: '/v1/products',
    headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId },
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  const res = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p1', rating: 4, body: 'See photo', authorName: 'Ann', authorEmail: 'ann@example.test', mediaIds: [''] }
  })
  t.equal(res.statusCode, 400, res.body)
  t.equal(res.json().code, 'invalid_request')
  t.match(res.json().errors, [{ path: 'mediaIds.0' }])
})

t.test('the uploads service refuses an empty upload id as one the store does not have, as media and as a use', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const refused = { statusCode: 400, message: /names an upload this store does not have/ }
  await t.rejects(app.services.uploads.media(tenant.storeId, ['']), refused)
  await t.rejects(app.db.transaction((trx) => app.services.uploads.attach(trx, tenant.storeId, [''], 'logoUploadId', 'branding')), refused)
})
