import t from 'tap'
import type { MailTransport } from '../../src/lib/mail.js'
import { mailTransport } from '../../src/lib/mail.js'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { api, DAY, expected, isoDay, NOW, prng, reviewRows } from './recount.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'
import { rebuildStore } from '../../src/modules/analytics/rollups.js'

/** An app on a manual clock, a tenant, and product p1. */
async function withProduct (t: Parameters<typeof build>[0], options: Parameters<typeof build>[1] = {}) {
  const clock = manualClock(NOW)
  const app = await build(t, { clock, ...options })
  const tenant = await makeTenant(app)
  const as = api(app, tenant, clock)
  await as('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  return { app, tenant, as, clock }
}

t.test('review series, distribution and totals equal a brute-force recount after random imports, moderation and deletes', async (t) => {
  const clock = manualClock(NOW)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const as = api(app, tenant, clock)
  const random = prng(18)
  const products = ['p1', 'p2', 'p3']
  await as('PUT', '/v1/products', { products: products.map((id) => ({ platformProductId: id })) })
  // Dates around a year end, month ends and week boundaries (2025-12-29 is a Monday).
  const start = Date.parse('2025-12-20T00:00:00Z')
  const items = Array.from({ length: 160 }, (_, i) => ({
    productId: products[Math.floor(random() * 3)],
    rating: 1 + Math.floor(random() * 5),
    body: `Review ${i}`,
    authorName: 'Ann',
    writtenAt: new Date(start + Math.floor(random() * 80 * DAY)).toISOString(),
    status: (['pending', 'published', 'rejected'] as const)[Math.floor(random() * 3)]
  }))
  // The last minute of a day and the first of the next fall on their own days.
  items.push({ ...items[0], writtenAt: '2026-01-31T23:59:59.999Z' }, { ...items[0], writtenAt: '2026-02-01T00:00:00Z' })
  t.equal((await as('POST', '/v1/imports', { type: 'reviews', items })).json().imported, items.length)
  const ids = (await app.services.db('reviews').where({ store_env_id: tenant.storeId }).orderBy('id').pluck('id')) as string[]
  for (const id of ids.filter(() => random() < 0.15)) {
    const status = (['pending', 'published', 'rejected'] as const)[Math.floor(random() * 3)]
    t.equal((await as('PATCH', `/v1/reviews/${id}`, { status })).statusCode, 200)
  }
  for (const id of ids.filter(() => random() < 0.08)) t.equal((await as('DELETE', `/v1/reviews/${id}`)).statusCode, 204)

  const rows = await reviewRows(app, tenant.storeId)
  const queries = [
    { from: '2025-12-15', to: '2026-03-15', interval: 'day' as const },
    { from: '2025-12-31', to: '2026-03-01', interval: 'week' as const },
    { from: '2025-12-20', to: '2026-03-10', interval: 'month' as const, status: 'published' },
    { from: '2026-01-06', to: '2026-02-20', interval: 'week' as const, productId: 'p2' },
    { from: '2026-01-31', to: '2026-02-01', interval: 'day' as const, productId: 'p1', status: 'rejected' }
  ]
  for (const q of queries) {
    const res = await as('GET', `/v1/analytics/reviews?${new URLSearchParams(q as Record<string, string>)}`)
    t.equal(res.statusCode, 200, res.body)
    t.same(res.json(), { ...q, productId: q.productId ?? null, status: q.status ?? null, ...expected(rows, q) }, JSON.stringify(q))
  }
})

t.test('publishing, rejecting and deleting a review move it between the status counts of its own day', async (t) => {
  const { app, tenant, as } = await withProduct(t)
  const submitted = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p1', rating: 2, body: 'Meh', authorName: 'Ann', authorEmail: 'ann@example.test' }
  })
  const id = submitted.json().id
  const counts = async () => Object.fromEntries(await Promise.all(['pending', 'published', 'rejected'].map(async (status) =>
    [status, (await as('GET', `/v1/analytics/reviews?from=2026-03-20&to=2026-03-20&status=${status}`)).json().totals.count])))
  t.same(await counts(), { pending: 1, published: 0, rejected: 0 })
  await as('PATCH', `/v1/reviews/${id}`, { status: 'published' })
  t.same(await counts(), { pending: 0, published: 1, rejected: 0 })
  await as('PATCH', `/v1/reviews/${id}`, { status: 'rejected' })
  t.same(await counts(), { pending: 0, published: 0, rejected: 1 })
  await as('DELETE', `/v1/reviews/${id}`)
  t.same(await counts(), { pending: 0, published: 0, rejected: 0 })
})

t.test('without from and to the series is the last 30 days up to today', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await api(app, tenant, null)('GET', '/v1/analytics/reviews?interval=day')
  t.equal(res.statusCode, 200)
  t.equal(res.json().series.length, 30)
  t.equal(res.json().to, isoDay(Date.now()))
  t.same(res.json().totals, { count: 0, averageRating: null })
})

t.test('absurd or contradictory ranges are refused with 400 invalid_request', async (t) => {
  const clock = manualClock(NOW)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const as = api(app, tenant, clock)
  const refused = [
    'from=0000-01-01&to=2026-01-01',
    'from=1969-12-31&to=1970-01-05',
    'from=9999-12-31&to=10000-01-01',
    'from=2026-02-30&to=2026-03-01',
    'from=2026-03-02&to=2026-03-01',
    'from=2020-01-01&to=2026-01-01&interval=day',
    'from=1970-01-01&to=9999-12-31&interval=month',
    'interval=year',
    'productId=' + 'x'.repeat(192),
    'from=2026-01-01T25:00:00Z',
    'from=1969-12-31T23:59:59Z&to=2026-01-01',
    'to=2026-01-01T00:00:00',
    'status=deleted',
    'from=' + '9'.repeat(400)
  ]
  for (const query of refused) {
    const res = await as('GET', `/v1/analytics/reviews?${query}`)
    t.equal(res.statusCode, 400, query)
    t.equal(res.json().code, 'invalid_request', query)
  }
  t.equal((await as('GET', '/v1/analytics/storefront?from=1969-01-01')).statusCode, 400)
  t.equal((await as('GET', '/v1/analytics/reviews?from=1970-01-01&to=1972-09-26&interval=day')).statusCode, 200, 'exactly 1,000 days')
  t.equal((await as('GET', '/v1/analytics/reviews?from=9990-01-01&to=9999-12-31&interval=week')).statusCode, 200)
})

/** A transport that refuses mail to addresses at bounce.test and keeps the rest in the local outbox. */
function flakyMailer (): MailTransport {
  const outbox = mailTransport({ mailFrom: 'test@localhost' }, Date.now)
  return {
    ...outbox,
    async send (trx, mail) {
      if (mail.to.endsWith('@bounce.test')) throw new Error('550 mailbox unavailable')
      await outbox.send(trx, mail)
    }
  }
}

t.test('the review request funnel counts every state and reason, and reviewed follows reviews added and deleted', async (t) => {
  const clock = manualClock(NOW)
  const app = await build(t, { clock, mailer: flakyMailer() })
  const tenant = await makeTenant(app)
  const as = api(app, tenant, clock)
  await as('PUT', '/v1/products', {
    products: [{ platformProductId: 'p1' }, { platformProductId: 'gift', excludedFromReviewRequests: true, exclusionReason: 'Gift card' }]
  })
  const fulfilledAt = new Date(NOW - DAY).toISOString()
  const order = (id: string, email: string | null, product = 'p1') => ({
    platformOrderId: id,
    customerEmail: email,
    fulfilledAt,
    lineItems: [{ platformProductId: product, quantity: 1 }]
  })
  await as('PUT', '/v1/orders', {
    orders: [
      order('o1', 'a@example.test'),
      order('o2', 'b@example.test'),
      order('o3', 'c@bounce.test'),
      order('o4', null),
      order('o5', 'e@example.test', 'gift'),
      order('o6', 'f@example.test'),
      { platformOrderId: 'o7', customerEmail: 'g@example.test' }
    ]
  })
  const funnel = async () => (await as('GET', '/v1/analytics/review-requests')).json()
  t.match(await funnel(), { scheduled: 4, sent: 0, failed: 0, skipped: 2, reviewed: 0, conversionRate: null })

  clock.advance(4 * DAY)
  await app.services.reviewRequests.runDue(tenant.storeId)
  // o6 is re-sent fixed after it was sent: a sent request is final, so the funnel keeps it as sent.
  await as('PUT', '/v1/orders', { orders: [order('o6', null)] })
  await as('POST', '/v1/imports', {
    type: 'reviews',
    items: [1, 2].map((n) => ({ productId: 'p1', orderId: 'o1', rating: 5, body: `Yes ${n}`, authorName: 'A', writtenAt: fulfilledAt }))
  })
  const o2 = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p1', orderId: 'o2', rating: 4, body: 'Good', authorName: 'B', authorEmail: 'b@example.test' }
  })
  t.same(await funnel(), {
    scheduled: 0,
    sent: 3,
    failed: 1,
    skipped: 2,
    reviewed: 2,
    conversionRate: 0.6667,
    reasons: [
      { state: 'failed', code: 'mail_transport_error', description: 'The mail transport refused the message', count: 1 },
      { state: 'skipped', code: 'no_customer_email', description: 'The order has no customer email', count: 1 },
      { state: 'skipped', code: 'products_excluded', description: 'Every product of the order is excluded from review requests', count: 1 }
    ]
  })
  await as('DELETE', `/v1/reviews/${o2.json().id}`)
  const ids = (await as('GET', '/v1/reviews?orderId=o1')).json().data.map((r: { id: string }) => r.id)
  await as('DELETE', `/v1/reviews/${ids[0]}`)
  t.match(await funnel(), { sent: 3, reviewed: 1, conversionRate: 0.3333 }, 'o1 keeps one review; o2 has none left')

  // The brute force: the orders and reviews tables themselves.
  const orders = await app.services.db('orders').where({ store_env_id: tenant.storeId }).select('platform_order_id', 'review_request_state')
  const reviewed = new Set(await app.services.db('reviews').where({ store_env_id: tenant.storeId }).pluck('order_id'))
  const byState = (s: string) => orders.filter((o: { review_request_state: string }) => o.review_request_state === s).length
  t.match(await funnel(), {
    scheduled: byState('scheduled'),
    sent: byState('sent'),
    failed: byState('failed'),
    skipped: byState('skipped'),
    reviewed: orders.filter((o: { review_request_state: string, platform_order_id: string }) =>
      o.review_request_state === 'sent' && reviewed.has(o.platform_order_id)
    ).length
  })
})

t.test('storefront engagement counts one helpful vote per visitor on the day it was cast', async (t) => {
  const { app, tenant, as, clock } = await withProduct(t)
  await as('POST', '/v1/imports', {
    type: 'reviews',
    items: [{ productId: 'p1', rating: 5, body: 'Great', authorName: 'A', writtenAt: '2026-01-01T00:00:00Z' }]
  })
  const id = (await as('GET', '/v1/reviews')).json().data[0].id
  const vote = (ip: string) => storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId, ip })
  await vote('198.51.100.1')
  await vote('198.51.100.1')
  clock.advance(DAY)
  await vote('198.51.100.2')
  await vote('198.51.100.3')
  const res = await as('GET', '/v1/analytics/storefront?from=2026-03-19&to=2026-03-22')
  t.equal(res.statusCode, 200)
  t.same(res.json().series.map((p: { period: string, helpfulVotes: number }) => [p.period, p.helpfulVotes]), [
    ['2026-03-19', 0],
    ['2026-03-20', 1],
    ['2026-03-21', 2],
    ['2026-03-22', 0]
  ])
  t.same(res.json().totals, { helpfulVotes: 3, favourites: 0, leads: 0, videoUploads: 0 })
})

/** Two favourites of one photo over two days (one repeated), three leads of two addresses and a review video upload. */
async function galleryEngagement (t: Parameters<typeof build>[0]) {
  const { app, tenant, as, clock } = await withProduct(t)
  const visitor = (url: string, payload: unknown, ip: string, headers?: Record<string, string>) =>
    storefront(app, {
      method: url.startsWith('/v1/uploads/') ? 'PUT' : 'POST',
      url,
      store: tenant.storeId,
      payload: payload as object,
      ip,
      headers
    })
  const gallery = (await as('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })).json()
  const sent = formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG })
  const photo = (await visitor(`/v1/galleries/${gallery.id}/photos`, sent.payload, '198.51.100.9', sent.headers)).json()
  await as('PATCH', `/v1/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })
  const favourite = (ip: string) => visitor(`/v1/galleries/${gallery.id}/favourites`, { photoId: photo.id }, ip)
  t.same((await favourite('198.51.100.1')).json(), { favouriteCount: 1 })
  await favourite('198.51.100.1')
  clock.advance(DAY)
  await favourite('198.51.100.2')
  const lead = (email: string, ip: string) => visitor(`/v1/galleries/${gallery.id}/leads`, { email, consent: true }, ip)
  await lead('ann@example.test', '198.51.100.3')
  await lead('ann@example.test', '198.51.100.4')
  await lead('bo@example.test', '198.51.100.5')
  const url = new URL(
    (await visitor('/v1/reviews/video-upload-url', { contentType: 'video/mp4', size: 100 }, '198.51.100.6')).json().uploadUrl
  )
  const mp4 = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2'),
    Buffer.alloc(76, 7)
  ])
  t.equal((await visitor(url.pathname + url.search, mp4, '198.51.100.6', { 'content-type': 'video/mp4' })).statusCode, 201)
  return { app, tenant, as }
}

t.test('storefront engagement counts gallery favourites and new leads, one per visitor and address, and review video uploads', async (t) => {
  const { as } = await galleryEngagement(t)
  const res = await as('GET', '/v1/analytics/storefront?from=2026-03-20&to=2026-03-21')
  t.equal(res.statusCode, 200)
  t.same(res.json().series, [
    { period: '2026-03-20', helpfulVotes: 0, favourites: 1, leads: 0, videoUploads: 0 },
    { period: '2026-03-21', helpfulVotes: 0, favourites: 1, leads: 2, videoUploads: 1 }
  ])
  t.same(res.json().totals, { helpfulVotes: 0, favourites: 2, leads: 2, videoUploads: 1 })
})

t.test('rebuilding a store\'s aggregates from its rows counts the same favourites, leads and video uploads', async (t) => {
  const { app, tenant, as } = await galleryEngagement(t)
  const before = (await as('GET', '/v1/analytics/storefront?from=2026-03-20&to=2026-03-21')).json()
  await app.db.transaction((trx) => rebuildStore(trx, tenant.storeId))
  t.same((await as('GET', '/v1/analytics/storefront?from=2026-03-20&to=2026-03-21')).json(), before)
})

t.test('one store never sees another store\'s analytics', async (t) => {
  const clock = manualClock(NOW)
  const app = await build(t, { clock })
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  await api(app, a, clock)('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  await api(app, a, clock)('POST', '/v1/imports', {
    type: 'reviews',
    items: [{ productId: 'p1', rating: 5, body: 'Great', authorName: 'A', writtenAt: new Date(NOW).toISOString() }]
  })
  t.equal((await api(app, a, clock)('GET', '/v1/analytics/reviews')).json().totals.count, 1)
  t.equal((await api(app, b, clock)('GET', '/v1/analytics/reviews')).json().totals.count, 0)
  clock.advance(150)
  const crossed = await call(app, { method: 'GET', url: '/v1/analytics/reviews', key: b.key, store: a.storeId })
  t.equal(crossed.statusCode, 404)
  t.equal(crossed.json().code, 'store_env_not_found')
})
