import t from 'tap'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { build, call, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { tickingClock } from '../content/app.js'
import { formData, JPEG } from '../content/multipart.js'

const ANN = 'ann.smith@example.test'

async function seed (app: FastifyInstance) {
  const tenant = await makeTenant(app)
  const as = (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  await as('PUT', '/v1/products', {
    products: [{
      platformProductId: 'p1',
      title: 'Linen shirt',
      url: 'https://shop.example/p/linen',
      imageUrl: 'https://shop.example/linen.jpg'
    }, { platformProductId: 'p2' }]
  })
  await as('PUT', '/v1/orders', { orders: [{ platformOrderId: 'o1', customerEmail: ANN }] })
  const item = (rating: number, writtenAt: string, extra: object = {}) => ({
    productId: 'p1',
    rating,
    body: `Rated ${rating}`,
    authorName: `Author ${rating}`,
    authorEmail: `r${rating}@example.test`,
    writtenAt,
    ...extra
  })
  await as('POST', '/v1/imports', {
    type: 'reviews',
    items: [
      item(5, '2026-01-03T10:00:00Z', { orderId: 'o1', authorEmail: ANN, title: 'Lovely' }),
      item(4, '2026-01-02T10:00:00Z'),
      item(4, '2026-01-04T10:00:00Z'),
      item(1, '2026-01-05T10:00:00Z', { status: 'pending' }),
      item(2, '2026-01-06T10:00:00Z', { status: 'rejected' }),
      { ...item(3, '2026-01-01T10:00:00Z'), productId: 'p2' }
    ]
  })
  return { tenant, as }
}

t.test('the evidence of a product summarises its published reviews only, newest first, with the verified share', async (t) => {
  const app = await sharedApp()
  const { as } = await seed(app)
  const res = await as('GET', '/v1/evidence/products/p1')
  t.equal(res.statusCode, 200)
  const evidence = res.json()
  t.same(evidence.rating, { average: 4.33, count: 3, distribution: { 1: 0, 2: 0, 3: 0, 4: 2, 5: 1 } })
  t.equal(evidence.verifiedShare, 0.3333)
  t.same(evidence.recentReviews.map((r: { rating: number }) => r.rating), [4, 5, 4])
  t.match(evidence.recentReviews[1], { authorName: 'Author 5', title: 'Lovely', verified: true, writtenAt: '2026-01-03T10:00:00.000Z' })
  t.notOk(JSON.stringify(evidence).includes('@example.test'), 'no email, nor its last characters')
  t.notOk('authorEmailLast4' in evidence.recentReviews[0])
  t.same(evidence.galleryPhotos, [])
})

t.test('photos of published reviews are the gallery photos of the evidence', async (t) => {
  const app = await sharedApp()
  const { tenant, as } = await seed(app)
  const boundary = '----eh-evidence'
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="p.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    readFileSync(new URL('../fixtures/photo.jpg', import.meta.url)),
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  const upload = await storefront(app, {
    url: '/v1/uploads/image',
    store: tenant.storeId,
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }
  })
  const review = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: {
      productId: 'p1',
      rating: 5,
      title: 'See',
      body: 'Look',
      authorName: 'Bo',
      authorEmail: 'bo@example.test',
      mediaIds: [upload.json().id]
    }
  })
  t.same((await as('GET', '/v1/evidence/products/p1')).json().galleryPhotos, [], 'pending reviews show nothing')
  await as('PATCH', `/v1/reviews/${review.json().id}`, { status: 'published' })
  t.same((await as('GET', '/v1/evidence/products/p1')).json().galleryPhotos, [{
    id: upload.json().id,
    url: upload.json().url,
    caption: 'See',
    source: 'review',
    reviewId: review.json().id
  }])
})

t.test('approved photos of the product\'s published galleries are gallery photos of the evidence, newest first', async (t) => {
  // A clock a second on at each read: many merchant calls stay inside the per-key budget, and photos get distinct times.
  const app = await build(t, { clock: tickingClock() })
  const { tenant, as } = await seed(app)
  const gallery = async (productId: string) =>
    (await as('POST', '/v1/galleries', { name: productId, productId, status: 'published' })).json().id as string
  const photo = async (galleryId: string, caption: string, status = 'approved') => {
    const sent = formData({ filename: 'p.jpg', type: 'image/jpeg', bytes: JPEG }, {
      caption,
      authorName: 'Bo',
      authorEmail: 'bo@example.test'
    })
    const id = (await storefront(app, { url: `/v1/galleries/${galleryId}/photos`, store: tenant.storeId, ...sent })).json().id as string
    if (status !== 'pending') await as('PATCH', `/v1/galleries/${galleryId}/photos/${id}`, { status })
    return (await as('GET', `/v1/galleries/${galleryId}/photos`)).json().data.find((p: { id: string }) => p.id === id) as {
      id: string
      imageUrl: string
    }
  }
  const shirt = await gallery('p1')
  const older = await photo(shirt, 'Older')
  const newer = await photo(shirt, 'Newer')
  await photo(shirt, 'Waiting', 'pending')
  await photo(shirt, 'Refused', 'rejected')
  await photo(await gallery('p2'), 'Other product')
  const hidden = await gallery('p1')
  await photo(hidden, 'In a draft gallery')
  await as('PATCH', `/v1/galleries/${hidden}`, { status: 'draft' })
  const evidence = (await as('GET', '/v1/evidence/products/p1')).json()
  t.same(evidence.galleryPhotos, [
    { id: newer.id, url: newer.imageUrl, caption: 'Newer', source: 'gallery', reviewId: null },
    { id: older.id, url: older.imageUrl, caption: 'Older', source: 'gallery', reviewId: null }
  ])
  t.notOk(JSON.stringify(evidence).includes('bo@'), 'no submitter address')
})

/** The properties schema.org defines on each type used, and those Google's review snippet rules require. */
const VOCABULARY: Record<string, { allowed: string[], required: string[] }> = {
  Product: { allowed: ['name', 'sku', 'url', 'image', 'aggregateRating', 'review'], required: ['name'] },
  AggregateRating: {
    allowed: ['ratingValue', 'reviewCount', 'bestRating', 'worstRating'],
    required: ['ratingValue', 'reviewCount', 'bestRating']
  },
  Review: {
    allowed: ['author', 'datePublished', 'reviewRating', 'name', 'reviewBody'],
    required: ['author', 'reviewRating', 'datePublished']
  },
  Person: { allowed: ['name'], required: ['name'] },
  Rating: { allowed: ['ratingValue', 'bestRating', 'worstRating'], required: ['ratingValue'] }
}

/** Every node typed, every property defined on its type, every required one present; the problems found. */
function structuredDataProblems (node: Record<string, unknown>, path = '$'): string[] {
  const type = node['@type'] as string
  const rules = VOCABULARY[type]
  if (!rules) return [`${path}: unknown @type ${type}`]
  const problems = rules.required.filter((p) => node[p] === undefined || node[p] === '').map((p) => `${path}: ${type} lacks ${p}`)
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('@')) continue
    if (!rules.allowed.includes(key)) problems.push(`${path}: ${key} is not a property of ${type}`)
    for (const [i, child] of (Array.isArray(value) ? value : [value]).entries()) {
      if (child && typeof child === 'object') {
        problems.push(...structuredDataProblems(child as Record<string, unknown>, `${path}.${key}[${i}]`))
      }
    }
  }
  return problems
}

t.test('the JSON-LD is a schema.org Product with AggregateRating and Reviews that meet the structured-data rules', async (t) => {
  const app = await sharedApp()
  const { as } = await seed(app)
  const ld = (await as('GET', '/v1/evidence/products/p1/jsonld')).json()
  t.equal(ld['@context'], 'https://schema.org')
  t.same(structuredDataProblems(ld), [])
  t.same(ld.aggregateRating, { '@type': 'AggregateRating', ratingValue: 4.33, reviewCount: 3, bestRating: 5, worstRating: 1 })
  t.match(ld, { name: 'Linen shirt', url: 'https://shop.example/p/linen', image: 'https://shop.example/linen.jpg' })
  t.same(ld.review[1], {
    '@type': 'Review',
    author: { '@type': 'Person', name: 'Author 5' },
    datePublished: '2026-01-03',
    reviewRating: { '@type': 'Rating', ratingValue: 5, bestRating: 5, worstRating: 1 },
    name: 'Lovely',
    reviewBody: 'Rated 5'
  })
  t.notOk(JSON.stringify(ld).includes('@example.test'))
})

t.test('a product without published reviews has JSON-LD without an AggregateRating, named by its id when untitled', async (t) => {
  const app = await sharedApp()
  const { as } = await seed(app)
  await as('PUT', '/v1/products', { products: [{ platformProductId: 'p3' }] })
  const ld = (await as('GET', '/v1/evidence/products/p3/jsonld')).json()
  t.same(structuredDataProblems(ld), [])
  t.same(ld, { '@context': 'https://schema.org', '@type': 'Product', name: 'p3', sku: 'p3', review: [] })
})

async function jwks (app: FastifyInstance) {
  const res = await app.inject({ method: 'GET', url: '/oauth/jwks' })
  return createLocalJWKSet(res.json())
}

t.test('a snapshot is a JWS that verifies offline against the keys published at /oauth/jwks', async (t) => {
  const app = await sharedApp()
  const { tenant, as } = await seed(app)
  const res = await as('POST', '/v1/evidence/snapshots', { platformProductId: 'p1' })
  t.equal(res.statusCode, 201)
  const snapshot = res.json()
  t.equal(snapshot.jwksUri, 'http://127.0.0.1:3000/oauth/jwks')
  const keys = await jwks(app)
  const { payload, protectedHeader } = await jwtVerify(snapshot.jws, keys, {
    issuer: 'http://127.0.0.1:3000/oauth',
    typ: 'evidence-snapshot+jwt'
  })
  t.equal(protectedHeader.kid, snapshot.kid)
  t.equal(payload.sub, `${tenant.storeId}/products/p1`)
  t.equal(payload.jti, snapshot.id)
  t.same((payload.evidence as { rating: unknown }).rating, { average: 4.33, count: 3, distribution: { 1: 0, 2: 0, 3: 0, 4: 2, 5: 1 } })
  t.same(payload.evidence, snapshot.evidence)
})

t.test('a tampered snapshot is refused by the verifier', async (t) => {
  const app = await sharedApp()
  const { as } = await seed(app)
  const { jws } = (await as('POST', '/v1/evidence/snapshots', { platformProductId: 'p1' })).json()
  const [header, body, signature] = jws.split('.')
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString())
  claims.evidence.rating.average = 5
  const forged = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.')
  const keys = await jwks(app)
  await t.rejects(jwtVerify(forged, keys), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
  const flipped = `${jws.slice(0, -4)}${jws.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
  await t.rejects(jwtVerify(flipped, keys))
  t.equal(decodeProtectedHeader(jws).alg, 'RS256')
})

t.test('an unknown product is 404 not_found and an over-long id 400 invalid_request', async (t) => {
  const app = await sharedApp()
  const { tenant, as } = await seed(app)
  for (const url of ['/v1/evidence/products/nope', '/v1/evidence/products/nope/jsonld']) {
    t.equal((await as('GET', url)).json().code, 'not_found')
  }
  t.equal((await as('POST', '/v1/evidence/snapshots', { platformProductId: 'nope' })).statusCode, 404)
  // A second key: the per-credential limit is 10/s.
  const key = (await makeKey(app, tenant, 'admin')).secret
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/evidence/products/${'x'.repeat(192)}`, key, store: tenant.storeId })).json().code,
    'invalid_request'
  )
  for (const body of [{ platformProductId: '' }, { platformProductId: 'x'.repeat(192) }, {}, { platformProductId: 'p1', extra: 1 }]) {
    const res = await call(app, { method: 'POST', url: '/v1/evidence/snapshots', key, store: tenant.storeId, payload: body })
    t.equal(res.json().code, 'invalid_request', JSON.stringify(body).slice(0, 40))
  }
})

t.test('one store never reads another store\'s evidence, and a viewer reads evidence but signs no snapshot', async (t) => {
  const app = await sharedApp()
  const { tenant } = await seed(app)
  const other: Tenant = await makeTenant(app)
  const crossed = await call(app, { method: 'GET', url: '/v1/evidence/products/p1', key: other.key, store: tenant.storeId })
  t.equal(crossed.json().code, 'store_env_not_found')
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/evidence/products/p1', key: other.key, store: other.storeId })).json().code,
    'not_found'
  )
  const viewer = await makeKey(app, tenant, 'viewer')
  t.equal((await call(app, { method: 'GET', url: '/v1/evidence/products/p1', key: viewer.secret, store: tenant.storeId })).statusCode, 200)
  t.equal(
    (await call(app, {
      method: 'POST',
      url: '/v1/evidence/snapshots',
      key: viewer.secret,
      store: tenant.storeId,
      payload: { platformProductId: 'p1' }
    })).json().code,
    'role_read_only'
  )
})

t.test('the JSON-LD can be pasted into a script tag: text that would close the tag or open a comment arrives escaped', async (t) => {
  const app = await sharedApp()
  const { as } = await seed(app)
  const hostile = '</script><script>alert(1)</script><!-- \u2028 & >'
  await as('PUT', '/v1/products', { products: [{ platformProductId: 'p4', title: hostile }] })
  await as('POST', '/v1/imports', {
    type: 'reviews',
    items: [{
      productId: 'p4',
      rating: 5,
      title: hostile,
      body: hostile,
      authorName: hostile,
      authorEmail: 'x@example.test',
      writtenAt: '2026-01-03T10:00:00Z'
    }]
  })
  const res = await as('GET', '/v1/evidence/products/p4/jsonld')
  t.equal(res.statusCode, 200)
  t.notMatch(res.body, /<\/script|<!--|[<>\u2028\u2029]/i)
  const ld = res.json()
  t.equal(ld.name, hostile)
  t.match(ld.review[0], { name: hostile, reviewBody: hostile, author: { name: hostile } })
})
