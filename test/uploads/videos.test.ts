import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

/** The head of an MP4 file (an `ftyp` box, brand isom) and some media bytes. */
function mp4 (bytes = 1000): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2')])
  return Buffer.concat([ftyp, Buffer.alloc(Math.max(0, bytes - ftyp.length), 7)])
}

/** The head of a WebM file (an EBML header with DocType webm) and some media bytes. */
function webm (bytes = 1000): Buffer {
  const header = Buffer.from([
    0x42,
    0x86,
    0x81,
    0x01,
    0x42,
    0xf7,
    0x81,
    0x01,
    0x42,
    0xf2,
    0x81,
    0x04,
    0x42,
    0xf3,
    0x81,
    0x08,
    0x42,
    0x82,
    0x84,
    ...Buffer.from('webm'),
    0x42,
    0x87,
    0x81,
    0x04,
    0x42,
    0x85,
    0x81,
    0x02
  ])
  const ebml = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | header.length]), header])
  return Buffer.concat([ebml, Buffer.alloc(Math.max(0, bytes - ebml.length), 7)])
}

async function setup (t: Parameters<typeof build>[0]) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  let ip = 0
  // Each call from its own visitor, so these tests are about the URL, not the per-IP budget.
  const visitor = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    storefront(app, { method: method as 'GET', url, store: tenant.storeId, payload: payload as object, headers, ip: `198.51.100.${++ip}` })
  const issue = async (size = 1000, contentType = 'video/mp4') =>
    (await visitor('POST', '/v1/reviews/video-upload-url', { contentType, size })).json()
  const put = (uploadUrl: string, bytes: Buffer, type = 'video/mp4') =>
    visitor('PUT', new URL(uploadUrl).pathname + new URL(uploadUrl).search, bytes, { 'content-type': type })
  return { app, tenant, clock, visitor, issue, put }
}

t.test('a video uploaded to its signed URL attaches to a review by videoId and is served back', async (t) => {
  const { app, tenant, issue, put, visitor } = await setup(t)
  const url = await issue()
  t.match(url, {
    videoId: /^vid_/,
    uploadUrl: new RegExp(`^http://127\\.0\\.0\\.1:3000/v1/uploads/videos/vid_\\w+\\?token=\\w{32}&store=${tenant.storeId}$`),
    expiresAt: '2026-11-23T12:15:00.000Z'
  })
  const uploaded = await put(url.uploadUrl, mp4())
  t.equal(uploaded.statusCode, 201, uploaded.body)
  t.same(uploaded.json(), { videoId: url.videoId, mime: 'video/mp4', size: 1000 })
  const review = await visitor('POST', '/v1/reviews', {
    productId: 'p1',
    rating: 5,
    body: 'See it',
    authorName: 'Ann',
    authorEmail: 'ann@example.test',
    mediaIds: [url.videoId]
  })
  t.equal(review.statusCode, 201, review.body)
  const stored = await app.services.reviews.get(tenant.storeId, review.json().id)
  t.match(stored.media, [{ id: url.videoId, type: 'video', mime: 'video/mp4' }])
  const served = await app.inject({ method: 'GET', url: `/v1/uploads/${url.videoId}` })
  t.equal(served.headers['content-type'], 'video/mp4')
  t.equal(served.rawPayload.length, 1000)
})

t.test('a video URL works once: the second upload is refused with upload_url_expired', async (t) => {
  const { issue, put } = await setup(t)
  const url = await issue()
  t.equal((await put(url.uploadUrl, mp4())).statusCode, 201)
  const again = await put(url.uploadUrl, mp4())
  t.equal(again.statusCode, 410)
  t.equal(again.json().code, 'upload_url_expired')
})

t.test('a video URL expires after 15 minutes, and a wrong token is refused the same way', async (t) => {
  const { issue, put, clock } = await setup(t)
  const url = await issue()
  t.equal((await put(url.uploadUrl.replace(/token=\w+/, 'token=wrong'), mp4())).statusCode, 410)
  clock.advance(15 * 60_000)
  const late = await put(url.uploadUrl, mp4())
  t.equal(late.statusCode, 410)
  t.equal(late.json().code, 'upload_url_expired')
})

t.test('a file that is not a video by content is 415 whatever its declared type, and nothing is kept', async (t) => {
  const { app, tenant, issue, put } = await setup(t)
  const url = await issue(100_000)
  const text = await put(url.uploadUrl, Buffer.from('just some text pretending to be a video'.repeat(200)))
  t.equal(text.statusCode, 415)
  t.equal(text.json().code, 'unsupported_media_type')
  const png = await put((await issue(100_000)).uploadUrl, Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, ...Buffer.alloc(5000)]))
  t.equal(png.statusCode, 415, 'an image is not a video')
  t.equal((await app.db('uploads').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n, 0)
})

t.test('a JSON or text body to a video URL is refused with unsupported_media_type and leaves the URL for the video', async (t) => {
  const { issue, put, visitor } = await setup(t)
  const url = await issue()
  const path = new URL(url.uploadUrl).pathname + new URL(url.uploadUrl).search
  for (const [type, body] of [['application/json', '{"video":"mp4"}'], ['text/plain', 'hello video']]) {
    const res = await visitor('PUT', path, body, { 'content-type': type })
    t.equal(res.statusCode, 415, `${type}: ${res.body}`)
    t.equal(res.json().code, 'unsupported_media_type')
  }
  t.equal((await put(url.uploadUrl, mp4())).statusCode, 201, 'the URL still takes the video')
})

t.test('a PUT to a video URL without a body is refused with invalid_request and leaves the URL for the video', async (t) => {
  const { issue, put, visitor } = await setup(t)
  const url = await issue()
  const res = await visitor('PUT', new URL(url.uploadUrl).pathname + new URL(url.uploadUrl).search)
  t.equal(res.statusCode, 400, res.body)
  t.equal(res.json().code, 'invalid_request')
  t.equal((await put(url.uploadUrl, mp4())).statusCode, 201, 'the URL still takes the video')
})

t.test('a video of another type than the URL was issued for is refused with unsupported_media_type and leaves the URL for the right file', async (t) => {
  const { app, tenant, issue, put } = await setup(t)
  const url = await issue(1000, 'video/webm')
  const res = await put(url.uploadUrl, mp4(), 'video/webm')
  t.equal(res.statusCode, 415, res.body)
  t.equal(res.json().code, 'unsupported_media_type')
  t.equal(Number((await app.db('uploads').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 0)
  const right = await put(url.uploadUrl, webm(), 'video/webm')
  t.equal(right.statusCode, 201, right.body)
  t.same(right.json(), { videoId: url.videoId, mime: 'video/webm', size: 1000 })
})

t.test('an upload larger than the size asked for is 413, and more than 100 MB cannot be asked for', async (t) => {
  const { issue, put, visitor } = await setup(t)
  const url = await issue(1000)
  const big = await put(url.uploadUrl, mp4(1001))
  t.equal(big.statusCode, 413)
  t.equal(big.json().code, 'payload_too_large')
  const tooBig = await visitor('POST', '/v1/reviews/video-upload-url', { contentType: 'video/mp4', size: 100 * 1024 * 1024 + 1 })
  t.equal(tooBig.statusCode, 400)
  t.equal((await visitor('POST', '/v1/reviews/video-upload-url', { contentType: 'video/avi', size: 10 })).statusCode, 400)
  t.equal(
    (await visitor('POST', '/v1/reviews/video-upload-url', { contentType: 'video/mp4', size: 100 * 1024 * 1024 })).statusCode,
    201,
    'exactly 100 MB may be asked for'
  )
})

t.test('a video URL of one store cannot be used through another store', async (t) => {
  const { app, issue } = await setup(t)
  const url = await issue()
  const other = await makeTenant(app, { origins: ['https://shop.example'] })
  const path = new URL(url.uploadUrl)
  const res = await storefront(app, {
    method: 'PUT',
    url: path.pathname + path.search,
    store: other.storeId,
    payload: mp4(),
    headers: { 'content-type': 'video/mp4' }
  })
  t.equal(res.statusCode, 410)
})

t.test('video upload URLs allow exactly 1 per second and 3 per minute per visitor IP', async (t) => {
  const { app, tenant, clock } = await setup(t)
  const ask = (ip = '203.0.113.50') =>
    storefront(app as FastifyInstance, {
      url: '/v1/reviews/video-upload-url',
      store: tenant.storeId,
      ip,
      payload: { contentType: 'video/mp4', size: 10 }
    })
  t.equal((await ask()).statusCode, 201)
  t.equal((await ask()).statusCode, 429, 'the second in a second')
  clock.advance(1000)
  t.equal((await ask()).statusCode, 201)
  clock.advance(1000)
  t.equal((await ask()).statusCode, 201)
  clock.advance(1000)
  t.equal((await ask()).statusCode, 429, 'the fourth in a minute')
  t.equal((await ask('203.0.113.51')).statusCode, 201, 'another visitor')
})

t.test('a video no review named within a day is deleted; one a review named stays', async (t) => {
  const { app, tenant, clock, issue, put, visitor } = await setup(t)
  const [named, left] = [await issue(), await issue()]
  for (const url of [named, left]) t.equal((await put(url.uploadUrl, mp4())).statusCode, 201)
  t.equal(
    (await visitor('POST', '/v1/reviews', {
      productId: 'p1',
      rating: 5,
      body: 'See it',
      authorName: 'Ann',
      authorEmail: 'ann@example.test',
      mediaIds: [named.videoId]
    })).statusCode,
    201
  )
  clock.advance(24 * 3_600_000 + 1)
  t.equal(await app.services.abandonedUploads(tenant.storeId), 1)
  t.equal((await app.inject({ method: 'GET', url: `/v1/uploads/${named.videoId}` })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `/v1/uploads/${left.videoId}` })).statusCode, 404)
})

t.test('an upload URL expired a day ago is deleted by the sweep, and a PUT to it is still refused as expired', async (t) => {
  const { app, tenant, clock, issue, put } = await setup(t)
  const url = await issue()
  clock.advance(15 * 60_000 + 24 * 3_600_000 + 1)
  await app.services.abandonedUploads(tenant.storeId)
  t.equal(await app.db('upload_urls').where({ id: url.videoId }).first(), undefined)
  const late = await put(url.uploadUrl, mp4())
  t.equal(late.statusCode, 410)
  t.equal(late.json().code, 'upload_url_expired')
})
