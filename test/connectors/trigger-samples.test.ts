import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'
import { receiver, testWorker } from '../webhooks/support.js'

/**
 * Each trigger's event is made the way an integrator's store makes it (the public API, the storefront or a
 * platform's webhook), then polled, and the item must have the structure of the catalogue's sample. A writer that
 * renames, adds or drops a field, or changes its kind, fails its test until the sample follows. (Not the birthday
 * reward: only the daily job grants it.)
 */

type Json = unknown

function kind (value: Json): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'array' : typeof value
}

/** Where two values differ in structure: keys at every level and the kind of each value; null stands for any kind. */
function shapeDiff (actual: Json, sample: Json, path = 'item'): string[] {
  const [a, s] = [kind(actual), kind(sample)]
  if (a === 'null' || s === 'null') return []
  if (a !== s) return [`${path}: ${a} where the sample has ${s}`]
  if (a === 'array') {
    const [first, model] = [(actual as Json[])[0], (sample as Json[])[0]]
    return first === undefined || model === undefined ? [] : shapeDiff(first, model, `${path}[0]`)
  }
  if (a !== 'object') return []
  const [ao, so] = [actual as Record<string, Json>, sample as Record<string, Json>]
  return [...new Set([...Object.keys(ao), ...Object.keys(so)])].sort().flatMap((key) => {
    if (!(key in so)) return [`${path}.${key}: not in the sample`]
    if (!(key in ao)) return [`${path}.${key}: in the sample but not in the item`]
    return shapeDiff(ao[key], so[key], `${path}.${key}`)
  })
}

const api = (app: FastifyInstance, tenant: Tenant, method: string, url: string, payload?: unknown) =>
  call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })

async function ok (res: Promise<{ statusCode: number, body: string, json: () => unknown }>, status = [200, 201, 204]) {
  const answer = await res
  if (!status.includes(answer.statusCode)) throw new Error(`${answer.statusCode}: ${answer.body}`)
  return answer
}

/** Polls the trigger and checks its one item against the catalogue's sample for it. */
async function pollMatchesSample (t: Test, app: FastifyInstance, tenant: Tenant, event: string, count = 1) {
  const catalogue = (await api(app, tenant, 'GET', '/connectors/triggers')).json() as Array<{ key: string, sample: Json }>
  const trigger = catalogue.find((entry) => entry.key === event)
  t.ok(trigger, `${event} is in the catalogue`)
  const res = await api(app, tenant, 'GET', `/connectors/triggers/${event}`)
  t.equal(res.statusCode, 200)
  const items = res.json() as Array<Record<string, Json>>
  t.equal(items.length, count, `${count} ${event} event(s)`)
  for (const item of items) {
    t.match(item, { id: /^evt_/, type: event })
    t.same(shapeDiff(item, trigger!.sample), [], `the ${event} item has the sample's structure`)
  }
  return items[0]
}

const SHOPIFY_SECRET = 'shpss_wave2_trigger_secret'
const fixture = (name: string) => readFileSync(new URL(`../fixtures/platforms/${name}`, import.meta.url))

/** A Shopify delivery signed as Shopify documents it (base64 HMAC-SHA256 of the raw body). */
function shopify (app: FastifyInstance, tenant: Tenant, topic: string, body: Buffer | string) {
  return app.inject({
    method: 'POST',
    url: `/v1/webhooks/shopify/${tenant.storeId}`,
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-webhook-id': `dlv-${topic}-${Date.now()}-${Math.random()}`,
      'x-shopify-shop-domain': 'example.myshopify.com',
      'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_SECRET).update(body).digest('base64')
    },
    payload: body
  })
}

/** The Shopify fixture's product or order created, then deleted, on the platform (the only way these events arise). */
async function deletedOnShopify (app: FastifyInstance, tenant: Tenant, resource: 'products' | 'orders', id: string) {
  await ok(api(app, tenant, 'PUT', '/webhooks/platforms/shopify', { secret: SHOPIFY_SECRET }))
  await ok(shopify(app, tenant, `${resource}/create`, fixture(`shopify-${resource}-create.json`)))
  await ok(shopify(app, tenant, `${resource}/delete`, `{"id":${id}}`))
}

const customer = { platformCustomerId: 'c-1', email: 'ann.lee@example.test', firstName: 'Ann', lastName: 'Lee', phone: '+1 555 0100 111', birthday: { month: 4, day: 12 } }

async function publishedGallery (app: FastifyInstance, tenant: Tenant): Promise<string> {
  return ((await ok(api(app, tenant, 'POST', '/galleries', { name: 'Worn by you', status: 'published' }))).json() as { id: string }).id
}

t.test('customer.created is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
  const item = await pollMatchesSample(t, app, tenant, 'customer.created')
  t.match(item, { customerId: /^cus_/, email: 'ann.lee@example.test', birthday: { month: 4, day: 12 } })
})

t.test('customer.updated is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [{ ...customer, phone: '+1 555 0100 222', birthday: { month: 4, day: 12, year: 1990 } }] }))
  const item = await pollMatchesSample(t, app, tenant, 'customer.updated')
  t.match(item, { phone: '+1 555 0100 222' })
})

t.test('customer.deleted (an erasure) is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
  await ok(api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', customerEmail: customer.email, customerName: 'Ann Lee' }] }))
  const { data } = (await api(app, tenant, 'GET', '/customers')).json() as { data: Array<{ id: string }> }
  await ok(api(app, tenant, 'DELETE', `/customers/${data[0].id}`))
  const item = await pollMatchesSample(t, app, tenant, 'customer.deleted')
  t.match(item, { customerId: data[0].id, orderIds: ['o-1'], reviewIds: [] })
})

t.test('product.deleted (a platform deletion) is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await deletedOnShopify(app, tenant, 'products', '788032119674292922')
  const item = await pollMatchesSample(t, app, tenant, 'product.deleted')
  t.match(item, { platformProductId: '788032119674292922' })
})

t.test('order.deleted (a platform deletion) is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await deletedOnShopify(app, tenant, 'orders', '820982911946154508')
  const item = await pollMatchesSample(t, app, tenant, 'order.deleted')
  t.match(item, { platformOrderId: '820982911946154508' })
})

t.test('review_incentive.issued is polled in the shape of its sample, the incentive\'s type as incentiveType', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const incentive = (await ok(api(app, tenant, 'POST', '/review-incentives', { type: 'coupon', minRating: 4, verifiedOnly: false }))).json() as { id: string }
  await ok(api(app, tenant, 'POST', `/review-incentives/${incentive.id}/codes`, { codes: ['THANKS-1'] }))
  await ok(api(app, tenant, 'PUT', '/products', { products: [{ platformProductId: 'p1' }] }))
  const review = await ok(storefront(app, { url: '/v1/reviews', store: tenant.storeId, ip: '203.0.113.21', payload: { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann.lee@example.test' } }))
  const reviewId = (review.json() as { id: string }).id
  await ok(api(app, tenant, 'PATCH', `/reviews/${reviewId}`, { status: 'published' }))
  const item = await pollMatchesSample(t, app, tenant, 'review_incentive.issued')
  t.match(item, { type: 'review_incentive.issued', rewardId: /^rii_/, incentiveId: incentive.id, incentiveType: 'coupon', reviewId, status: 'issued', code: 'THANKS-1' })
})

t.test('affiliate.referral_recorded is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'PUT', '/affiliates/settings', { usdRates: { EUR: '1.08' } }))
  const affiliate = (await ok(api(app, tenant, 'POST', '/affiliates', { name: 'Trail Blog', code: 'TRAIL10', commissionRate: '0.1' }))).json() as { id: string }
  await ok(api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', total: 79.9, currency: 'EUR', affiliateCode: 'trail10' }] }))
  const item = await pollMatchesSample(t, app, tenant, 'affiliate.referral_recorded')
  t.match(item, { referralId: /^ref_/, affiliateId: affiliate.id, orderId: 'o-1', orderTotalCents: 7990, commissionCents: 799, status: 'payable' })
})

t.test('gallery.photo.created is polled in the shape of its sample, without the sender\'s address', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const gallery = await publishedGallery(app, tenant)
  const photo = formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }, { caption: 'Beach day', authorName: 'Ann', authorEmail: 'ann.lee@example.test' })
  await ok(storefront(app, { url: `/v1/galleries/${gallery}/photos`, store: tenant.storeId, ip: '203.0.113.22', ...photo }))
  const item = await pollMatchesSample(t, app, tenant, 'gallery.photo.created')
  t.match(item, { photoId: /^gph_/, galleryId: gallery, caption: 'Beach day', authorEmailLast4: 'test', status: 'pending' })
  t.notOk(JSON.stringify(item).includes('ann.lee@'))
})

t.test('gallery.lead.created is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const gallery = await publishedGallery(app, tenant)
  await ok(storefront(app, { url: `/v1/galleries/${gallery}/leads`, store: tenant.storeId, ip: '203.0.113.23', payload: { email: 'ann.lee@example.test', name: 'Ann', consent: true } }))
  const item = await pollMatchesSample(t, app, tenant, 'gallery.lead.created')
  t.match(item, { leadId: /^lead_/, galleryId: gallery, email: 'ann.lee@example.test', consent: true })
})

t.test('email_suppression.created is polled in the shape of its sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'POST', '/email-suppressions', { email: 'ann.lee@example.test', reason: 'bounced' }))
  const item = await pollMatchesSample(t, app, tenant, 'email_suppression.created')
  t.match(item, { email: 'ann.lee@example.test', reason: 'bounced' })
})

const WAVE_2 = {
  'customer.created': 'customers',
  'customer.updated': 'customers',
  'customer.deleted': 'customers',
  'product.deleted': 'products',
  'order.deleted': 'orders',
  'review_incentive.issued': 'review-incentives',
  'affiliate.referral_recorded': 'affiliates',
  'gallery.photo.created': 'galleries',
  'gallery.lead.created': 'galleries',
  'email_suppression.created': 'email-suppressions'
} as const
const READ_SCOPES = [...new Set(Object.values(WAVE_2))].map((resource) => `${resource}:read`)

t.test('without read scope on its resource a key can neither poll nor subscribe to a wave-2 trigger', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [event, resource] of Object.entries(WAVE_2)) {
    // Every other resource's read scope, and the hook scope: only the one missing scope can be why it is refused.
    const key = (await makeKey(app, tenant, 'editor', [...READ_SCOPES.filter((scope) => scope !== `${resource}:read`), 'connectors:write'])).secret
    const polled = await call(app, { method: 'GET', url: `/v1/connectors/triggers/${event}`, key, store: tenant.storeId })
    t.equal(polled.statusCode, 403, `poll ${event}`)
    t.equal(polled.json().code, 'insufficient_scope')
    const hook = await call(app, { method: 'POST', url: '/v1/connectors/hooks', key, store: tenant.storeId, payload: { targetUrl: 'https://hooks.example/z', event } })
    t.equal(hook.statusCode, 403, `subscribe ${event}`)
    t.equal(hook.json().code, 'insufficient_scope')
  }
})

t.test('with read scope on its resource a key may poll and subscribe to a wave-2 trigger', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [event, resource] of Object.entries(WAVE_2)) {
    const key = (await makeKey(app, tenant, 'editor', [`${resource}:read`, 'connectors:write'])).secret
    t.equal((await call(app, { method: 'GET', url: `/v1/connectors/triggers/${event}`, key, store: tenant.storeId })).statusCode, 200, `poll ${event}`)
    const hook = await call(app, { method: 'POST', url: '/v1/connectors/hooks', key, store: tenant.storeId, payload: { targetUrl: 'https://hooks.example/z', event } })
    t.equal(hook.statusCode, 201, `subscribe ${event}`)
  }
})

t.test('a customer.created hook delivers the polled item', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await ok(api(app, tenant, 'POST', '/connectors/hooks', { targetUrl: rx.url, event: 'customer.created' }))
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(rx.received.length, 1)
  const [polled] = (await api(app, tenant, 'GET', '/connectors/triggers/customer.created')).json() as Json[]
  t.same(JSON.parse(rx.received[0].body), polled)
})

const order = { platformOrderId: 'o-1', customerEmail: 'ann.lee@example.test', customerName: 'Ann Lee', total: 10, currency: 'EUR', placedAt: '2026-11-20T00:00:00Z', fulfilledAt: '2026-11-21T00:00:00Z', lineItems: [{ platformProductId: 'p1', quantity: 1 }] }

for (const event of ['product.upserted', 'order.upserted', 'order.review_request.updated']) {
  t.test(`${event} is polled in the shape of its sample`, async (t) => {
    const app = await sharedApp()
    const tenant = await makeTenant(app)
    await ok(api(app, tenant, 'PUT', '/products', { products: [{ platformProductId: 'p1', title: 'Merino Crew Sweater', url: 'https://shop.example/p1', imageUrl: 'https://shop.example/p1.jpg' }] }))
    await ok(api(app, tenant, 'PUT', '/orders', { orders: [order] }))
    const item = await pollMatchesSample(t, app, tenant, event)
    t.ok(item.platformProductId ?? item.platformOrderId)
  })
}

/** A review's whole life, so that each review trigger has exactly one event: written, published, replied to, deleted. */
for (const event of ['review.created', 'review.published', 'review.updated', 'review.deleted']) {
  t.test(`${event} is polled in the shape of its sample`, async (t) => {
    const app = await sharedApp()
    const tenant = await makeTenant(app)
    await ok(api(app, tenant, 'PUT', '/products', { products: [{ platformProductId: 'p1' }] }))
    const review = await ok(storefront(app, { url: '/v1/reviews', store: tenant.storeId, ip: '203.0.113.24', payload: { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann.lee@example.test' } }))
    const id = (review.json() as { id: string }).id
    await ok(api(app, tenant, 'PATCH', `/reviews/${id}`, { status: 'published' }))
    await ok(api(app, tenant, 'PATCH', `/reviews/${id}`, { reply: 'Thank you, Ann!' }))
    await ok(api(app, tenant, 'DELETE', `/reviews/${id}`))
    const item = await pollMatchesSample(t, app, tenant, event)
    t.match(item, { reviewId: /^rev_/, authorEmailLast4: 'test' })
  })
}

t.test('loyalty.referral_reward is polled in the shape of its sample, once for each side of the referral', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await ok(api(app, tenant, 'PUT', '/loyalty/settings', { pointsPerUnit: 0, birthdayReward: { points: 0 }, referralReward: { referrerPoints: 500, refereePoints: 250 } }))
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer, { platformCustomerId: 'c-2', email: 'sam.lee@example.test' }] }))
  const { data } = (await api(app, tenant, 'GET', '/customers?email=ann.lee@example.test')).json() as { data: Array<{ id: string }> }
  await ok(api(app, tenant, 'POST', '/loyalty/referrals', { referrerCustomerId: data[0].id, refereeEmail: 'sam.lee@example.test' }))
  await ok(api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', customerEmail: 'sam.lee@example.test', total: 20 }] }))
  const item = await pollMatchesSample(t, app, tenant, 'loyalty.referral_reward', 2)
  t.match(item, { points: 250, referredEmail: 'sam.lee@example.test' })
})
