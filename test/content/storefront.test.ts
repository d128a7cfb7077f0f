import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { contentApp } from './app.js'
import { STOREFRONT_LIMITS, storefrontLimitKey } from '../../src/plugins/storefront.js'

async function setup (app?: FastifyInstance) {
  app ??= await contentApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  const read = (url: string, headers: Record<string, string> = {}, options: { origin?: string, ip?: string } = {}) =>
    storefront(app, { method: 'GET', url: `/v1${url}`, store: tenant.storeId, headers, ...options })
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }, { platformProductId: 'p2' }] })
  return { app, tenant, api, read }
}

/** Reviews stored as the storefront form stores them, then published or rejected by the merchant. */
async function review (
  app: FastifyInstance,
  tenant: { storeId: string, key: string },
  rating: number,
  status: 'published' | 'rejected' | 'pending',
  productId = 'p1'
) {
  const store = (await app.services.stores.find(tenant.storeId))!
  const { id } = await app.services.reviews.submit(store, {
    productId,
    rating,
    body: `Rated ${rating}`,
    authorName: `Author ${rating}`,
    authorEmail: `secret-${rating}@mailbox.test`
  })
  if (status !== 'pending') await app.services.reviews.update(store, id, { status })
  return id
}

t.test('storefront reviews are the published ones, newest first, with the author name and no part of the address', async (t) => {
  const { app, tenant, read } = await setup()
  const first = await review(app, tenant, 5, 'published')
  const second = await review(app, tenant, 4, 'published')
  await review(app, tenant, 1, 'rejected')
  await review(app, tenant, 2, 'pending')
  await review(app, tenant, 3, 'published', 'p2')
  const res = await read('/storefront/reviews?productId=p1&limit=1')
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    data: [{ id: second, authorName: 'Author 4', rating: 4, verified: false }],
    meta: { total: 2, limit: 1, totalPages: 2 }
  })
  t.equal((await read('/storefront/reviews?productId=p1&limit=1&page=2')).json().data[0].id, first)
  t.notMatch(res.body, /secret|mailbox|authorEmail|\.test/, 'not the address, nor its last characters')
})

t.test('the summary counts published reviews per rating and follows publishing, rejecting and deleting', async (t) => {
  const { app, tenant, api, read } = await setup()
  t.same((await read('/storefront/summary?productId=p1')).json(), {
    productId: 'p1',
    count: 0,
    average: null,
    distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 }
  })
  await review(app, tenant, 5, 'published')
  await review(app, tenant, 4, 'published')
  const later = await review(app, tenant, 4, 'published')
  await review(app, tenant, 1, 'pending')
  t.same((await read('/storefront/summary?productId=p1')).json(), {
    productId: 'p1',
    count: 3,
    average: 4.33,
    distribution: { 1: 0, 2: 0, 3: 0, 4: 2, 5: 1 }
  })
  await api('PATCH', `/reviews/${later}`, { status: 'rejected' })
  t.match((await read('/storefront/summary?productId=p1')).json(), { count: 2, average: 4.5 })
  const kept = (await api('GET', '/reviews?productId=p1&status=published')).json().data[0].id
  await api('DELETE', `/reviews/${kept}`)
  t.match((await read('/storefront/summary?productId=p1')).json(), { count: 1 })
})

t.test('storefront FAQs are the published ones of the product and the store-wide ones, by position', async (t) => {
  const { api, read } = await setup()
  await api('POST', '/faqs', { question: 'Wide', answer: 'A', status: 'published', position: 2 })
  await api('POST', '/faqs', { question: 'Own', answer: 'A', productId: 'p1', status: 'published', position: 1 })
  await api('POST', '/faqs', { question: 'Draft', answer: 'A', productId: 'p1' })
  await api('POST', '/faqs', { question: 'Other', answer: 'A', productId: 'p2', status: 'published' })
  const questions = async (url: string) => (await read(url)).json().data.map((f: { question: string }) => f.question)
  t.same(await questions('/storefront/faqs?productId=p1'), ['Own', 'Wide'])
  t.same(await questions('/storefront/faqs'), ['Wide'])
})

t.test('storefront FAQs page like every list: none is cut off past a hundred', async (t) => {
  const { app, tenant, read } = await setup()
  const store = (await app.services.stores.find(tenant.storeId))!
  for (let i = 0; i < 101; i++) await app.services.faqs.create(store, { question: `Q${i}`, answer: 'A', status: 'published', position: i })
  const first = (await read('/storefront/faqs?limit=100')).json()
  t.match(first.meta, { total: 101, page: 1, limit: 100, totalPages: 2 })
  t.equal(first.data.length, 100)
  t.same((await read('/storefront/faqs?limit=100&page=2')).json().data.map((f: { question: string }) => f.question), ['Q100'])
  t.match((await read('/storefront/faqs')).json().meta, { limit: 20, totalPages: 6 }, 'twenty by default, as every list of the contract')
  t.match((await read('/storefront/faqs?limit=20&page=6')).json(), { data: [{ question: 'Q100' }], meta: { totalPages: 6 } })
})

t.test('storefront placements are the enabled ones of the page, found by any form of its URL', async (t) => {
  const { api, read } = await setup()
  const page = (await api('POST', '/web-pages', { url: 'https://shop.example/p/shirt', type: 'product' })).json()
  const on =
    (await api('POST', '/placements', { webPageId: page.id, widget: 'reviews', selector: '#reviews', settings: { productId: 'p1' } }))
      .json()
  await api('POST', '/placements', { webPageId: page.id, widget: 'faqs', selector: '#faqs', enabled: false })
  const res = (await read(`/storefront/placements?url=${encodeURIComponent('https://shop.example/p/shirt/?utm_source=x#reviews')}`)).json()
  t.same(res, {
    page: { id: page.id, url: page.url, type: 'product' },
    data: [{ id: on.id, widget: 'reviews', selector: '#reviews', settings: { productId: 'p1' } }]
  })
  t.same((await read('/storefront/placements?url=https%3A%2F%2Fshop.example%2Felsewhere')).json(), { page: null, data: [] })
  t.same((await read('/storefront/placements?url=not-a-url')).json(), { page: null, data: [] })
})

t.test('widget reads carry an ETag and public caching, answer 304 to a matching If-None-Match, and a new ETag after a change', async (t) => {
  const { app, tenant, read } = await setup()
  await review(app, tenant, 5, 'published')
  const first = await read('/storefront/summary?productId=p1')
  t.equal(first.headers['cache-control'], 'public, max-age=60')
  const etag = String(first.headers.etag)
  t.match(etag, /^"[\w-]+"$/)
  const again = await read('/storefront/summary?productId=p1', { 'if-none-match': etag })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal(
    (await read('/storefront/summary?productId=p1', { 'if-none-match': `"other", W/${etag}` })).statusCode,
    304,
    'a list and a weak form match too'
  )
  await review(app, tenant, 3, 'published')
  const changed = await read('/storefront/summary?productId=p1', { 'if-none-match': etag })
  t.equal(changed.statusCode, 200)
  t.not(changed.headers.etag, etag)
})

t.test('a widget read from an origin the store has not allowed is refused and leaks nothing', async (t) => {
  const { app, tenant, read } = await setup()
  await review(app, tenant, 5, 'published')
  for (
    const url of [
      '/storefront/reviews?productId=p1',
      '/storefront/summary?productId=p1',
      '/storefront/faqs',
      '/storefront/placements?url=https%3A%2F%2Fshop.example%2F',
      '/storefront/galleries/gal_x'
    ]
  ) {
    const res = await read(url, {}, { origin: 'https://evil.example' })
    t.equal(res.statusCode, 403, url)
    t.equal(res.json().code, 'origin_not_allowed')
    t.notOk(res.headers['access-control-allow-origin'])
    t.notOk(res.headers.etag)
  }
})

t.test('each widget read allows exactly 20 per second per store and visitor IP', async (t) => {
  const clock = manualClock()
  const { read, app } = await setup(await build(t, { clock }))
  const other = await makeTenant(app, { origins: ['https://shop.example'] })
  for (
    const url of [
      '/storefront/reviews?productId=p1',
      '/storefront/summary?productId=p1',
      '/storefront/faqs',
      '/storefront/placements?url=https%3A%2F%2Fshop.example%2F',
      '/storefront/galleries/gal_x'
    ]
  ) {
    for (let i = 0; i < 20; i++) t.not((await read(url)).statusCode, 429)
    const over = await read(url)
    t.equal(over.statusCode, 429, `${url}: the 21st in a second`)
    t.equal(over.json().code, 'rate_limited')
    t.not((await read(url, {}, { ip: '198.51.100.99' })).statusCode, 429, 'another visitor')
    const elsewhere = await storefront(app, { method: 'GET', url: `/v1${url}`, store: other.storeId })
    t.not(elsewhere.statusCode, 429, 'the same visitor on another shop')
  }
})

t.test('a widget read allows exactly 600 per minute per visitor IP', async (t) => {
  const clock = manualClock()
  const { app, tenant, read } = await setup(await build(t, { clock }))
  // The first 580 of the minute spent straight on the limiter (29 seconds of 20), the last 20 through the route.
  const key = storefrontLimitKey('storefront.faqs', tenant.storeId, '203.0.113.7')
  for (let second = 0; second < 29; second++) {
    for (let i = 0; i < 20; i++) await app.limiter.consume(key, STOREFRONT_LIMITS['storefront.faqs'])
    clock.advance(1000)
  }
  for (let i = 0; i < 20; i++) t.equal((await read('/storefront/faqs')).statusCode, 200, `request ${581 + i}`)
  clock.advance(1000)
  t.equal((await read('/storefront/faqs')).statusCode, 429, 'the 601st in a minute')
  clock.advance(30_001)
  t.equal((await read('/storefront/faqs')).statusCode, 200, 'the first second has slid out of the minute')
})
