import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import type { Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'
import { birthdayJob } from '../../src/modules/loyalty/birthdays.js'

/**
 * Each trigger's event made the way an integrator's store makes it (the public API, the storefront, a platform's
 * webhook or the daily job), for the tests that poll or subscribe to it: test/connectors/trigger-samples.test.ts
 * and the Zapier app's connectors/zapier/test/real-events.test.ts. A writer answers what its items must match.
 */

type Json = unknown

function kind (value: Json): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'array' : typeof value
}

/** Where two values differ in structure: keys at every level and the kind of each value; null stands for any kind. */
export function shapeDiff (actual: Json, sample: Json, path = 'item'): string[] {
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

export const api = (app: FastifyInstance, tenant: Tenant, method: string, url: string, payload?: unknown) =>
  call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })

export async function ok (res: Promise<{ statusCode: number, body: string, json: () => unknown }>, status = [200, 201, 204]) {
  const answer = await res
  if (!status.includes(answer.statusCode)) throw new Error(`${answer.statusCode}: ${answer.body}`)
  return answer
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

export const customer = {
  platformCustomerId: 'c-1',
  email: 'ann.lee@example.test',
  firstName: 'Ann',
  lastName: 'Lee',
  phone: '+1 555 0100 111',
  birthday: { month: 4, day: 12 }
}

const order = {
  platformOrderId: 'o-1',
  customerEmail: 'ann.lee@example.test',
  customerName: 'Ann Lee',
  total: 10,
  currency: 'EUR',
  placedAt: '2026-11-20T00:00:00Z',
  fulfilledAt: '2026-11-21T00:00:00Z',
  lineItems: [{ platformProductId: 'p1', quantity: 1 }]
}

async function publishedGallery (app: FastifyInstance, tenant: Tenant): Promise<string> {
  return ((await ok(api(app, tenant, 'POST', '/galleries', { name: 'Worn by you', status: 'published' }))).json() as { id: string }).id
}

async function customerIdOf (app: FastifyInstance, tenant: Tenant, email: string): Promise<string> {
  const { data } = (await api(app, tenant, 'GET', `/customers?email=${encodeURIComponent(email)}`)).json() as {
    data: Array<{ id: string }>
  }
  return data[0].id
}

async function writtenReview (app: FastifyInstance, tenant: Tenant): Promise<string> {
  await ok(api(app, tenant, 'PUT', '/products', { products: [{ platformProductId: 'p1' }] }))
  const review = await ok(
    storefront(app, {
      url: '/v1/reviews',
      store: tenant.storeId,
      ip: '203.0.113.24',
      payload: { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann.lee@example.test' }
    })
  )
  return (review.json() as { id: string }).id
}

/** A review's whole life, so that each review trigger has exactly one event: written, published, replied to, deleted. */
async function reviewLife (app: FastifyInstance, tenant: Tenant) {
  const id = await writtenReview(app, tenant)
  await ok(api(app, tenant, 'PATCH', `/reviews/${id}`, { status: 'published' }))
  await ok(api(app, tenant, 'PATCH', `/reviews/${id}`, { reply: 'Thank you, Ann!' }))
  await ok(api(app, tenant, 'DELETE', `/reviews/${id}`))
  return { reviewId: id, authorEmailLast4: 'test' }
}

/** A product and a fulfilled order: one product.upserted, one order.upserted, one order.review_request.updated. */
async function productAndOrder (app: FastifyInstance, tenant: Tenant) {
  await ok(
    api(app, tenant, 'PUT', '/products', {
      products: [{
        platformProductId: 'p1',
        title: 'Merino Crew Sweater',
        url: 'https://shop.example/p1',
        imageUrl: 'https://shop.example/p1.jpg'
      }]
    })
  )
  await ok(api(app, tenant, 'PUT', '/orders', { orders: [order] }))
  return {}
}

/** A day no other test gives a customer's birthday, so this pass of the (store-wide) job grants only this test's. */
const BIRTHDAY = Date.parse('2026-07-17T09:00:00Z')

export type Writer = (app: FastifyInstance, tenant: Tenant) => Promise<Record<string, unknown>>

/** By event type; each makes one event of its type (two for the referral reward: one per side). */
export const WRITERS: Record<string, Writer> = {
  'review.created': reviewLife,
  'review.published': reviewLife,
  'review.updated': reviewLife,
  'review.deleted': reviewLife,
  'product.upserted': async (app, tenant) => ({
    ...await productAndOrder(app, tenant),
    platformProductId: 'p1',
    title: 'Merino Crew Sweater'
  }),
  'order.upserted': async (app, tenant) => ({ ...await productAndOrder(app, tenant), platformOrderId: 'o-1' }),
  'order.review_request.updated': async (app, tenant) => ({ ...await productAndOrder(app, tenant), platformOrderId: 'o-1' }),

  async 'customer.created' (app, tenant) {
    await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
    return { customerId: /^cus_/, email: 'ann.lee@example.test', birthday: { month: 4, day: 12 } }
  },
  async 'customer.updated' (app, tenant) {
    await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
    await ok(
      api(app, tenant, 'PUT', '/customers', {
        customers: [{ ...customer, phone: '+1 555 0100 222', birthday: { month: 4, day: 12, year: 1990 } }]
      })
    )
    return { phone: '+1 555 0100 222' }
  },
  async 'customer.deleted' (app, tenant) {
    await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
    await ok(
      api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', customerEmail: customer.email, customerName: 'Ann Lee' }] })
    )
    const id = await customerIdOf(app, tenant, customer.email)
    await ok(api(app, tenant, 'DELETE', `/customers/${id}`))
    return { customerId: id, orderIds: ['o-1'], reviewIds: [] }
  },
  async 'product.deleted' (app, tenant) {
    await deletedOnShopify(app, tenant, 'products', '788032119674292922')
    return { platformProductId: '788032119674292922' }
  },
  async 'order.deleted' (app, tenant) {
    await deletedOnShopify(app, tenant, 'orders', '820982911946154508')
    return { platformOrderId: '820982911946154508' }
  },

  async 'loyalty.birthday_reward' (app, tenant) {
    await ok(
      api(app, tenant, 'PUT', '/loyalty/settings', {
        pointsPerUnit: 0,
        birthdayReward: { points: 200 },
        referralReward: { referrerPoints: 0, refereePoints: 0 }
      })
    )
    await ok(api(app, tenant, 'PUT', '/customers', { customers: [{ ...customer, birthday: { month: 7, day: 17 } }] }))
    // The daily job as the worker runs it, on the customer's birthday.
    await birthdayJob({ db: app.db, loyalty: app.services.loyalty, clock: () => BIRTHDAY }).run()
    return {
      loyaltyAccountId: /^lya_/,
      customerId: await customerIdOf(app, tenant, customer.email),
      points: 200,
      reason: 'birthday',
      year: 2026
    }
  },
  async 'loyalty.referral_reward' (app, tenant) {
    await ok(
      api(app, tenant, 'PUT', '/loyalty/settings', {
        pointsPerUnit: 0,
        birthdayReward: { points: 0 },
        referralReward: { referrerPoints: 500, refereePoints: 250 }
      })
    )
    await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer, { platformCustomerId: 'c-2', email: 'sam.lee@example.test' }] }))
    const referrer = await customerIdOf(app, tenant, customer.email)
    await ok(api(app, tenant, 'POST', '/loyalty/referrals', { referrerCustomerId: referrer, refereeEmail: 'sam.lee@example.test' }))
    await ok(api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', customerEmail: 'sam.lee@example.test', total: 20 }] }))
    return { reason: 'referral', referredEmail: 'sam.lee@example.test' }
  },

  async 'review_incentive.issued' (app, tenant) {
    const incentive = (await ok(api(app, tenant, 'POST', '/review-incentives', { type: 'coupon', minRating: 4, verifiedOnly: false })))
      .json() as { id: string }
    await ok(api(app, tenant, 'POST', `/review-incentives/${incentive.id}/codes`, { codes: ['THANKS-1'] }))
    const reviewId = await writtenReview(app, tenant)
    await ok(api(app, tenant, 'PATCH', `/reviews/${reviewId}`, { status: 'published' }))
    return {
      type: 'review_incentive.issued',
      rewardId: /^rii_/,
      incentiveId: incentive.id,
      incentiveType: 'coupon',
      reviewId,
      status: 'issued',
      code: 'THANKS-1'
    }
  },
  async 'affiliate.referral_recorded' (app, tenant) {
    await ok(api(app, tenant, 'PUT', '/affiliates/settings', { usdRates: { EUR: '1.08' } }))
    const affiliate = (await ok(api(app, tenant, 'POST', '/affiliates', { name: 'Trail Blog', code: 'TRAIL10', commissionRate: '0.1' })))
      .json() as { id: string }
    await ok(
      api(app, tenant, 'PUT', '/orders', { orders: [{ platformOrderId: 'o-1', total: 79.9, currency: 'EUR', affiliateCode: 'trail10' }] })
    )
    return {
      referralId: /^ref_/,
      affiliateId: affiliate.id,
      orderId: 'o-1',
      orderTotalCents: 7990,
      commissionCents: 799,
      status: 'payable'
    }
  },
  async 'gallery.photo.created' (app, tenant) {
    const gallery = await publishedGallery(app, tenant)
    const photo = formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }, {
      caption: 'Beach day',
      authorName: 'Ann',
      authorEmail: 'ann.lee@example.test'
    })
    await ok(storefront(app, { url: `/v1/galleries/${gallery}/photos`, store: tenant.storeId, ip: '203.0.113.22', ...photo }))
    return { photoId: /^gph_/, galleryId: gallery, caption: 'Beach day', authorEmailLast4: 'test', status: 'pending' }
  },
  async 'gallery.lead.created' (app, tenant) {
    const gallery = await publishedGallery(app, tenant)
    await ok(
      storefront(app, {
        url: `/v1/galleries/${gallery}/leads`,
        store: tenant.storeId,
        ip: '203.0.113.23',
        payload: { email: 'ann.lee@example.test', name: 'Ann', consent: true }
      })
    )
    return { leadId: /^lead_/, galleryId: gallery, email: 'ann.lee@example.test', consent: true }
  },
  async 'email_suppression.created' (app, tenant) {
    await ok(api(app, tenant, 'POST', '/email-suppressions', { email: 'ann.lee@example.test', reason: 'bounced' }))
    return { email: 'ann.lee@example.test', reason: 'bounced' }
  }
}

/** How many events of its type a writer makes. */
export const eventsMade = (event: string) => event === 'loyalty.referral_reward' ? 2 : 1
