'use strict'

/**
 * Sample items exactly as `GET /v1/connectors/triggers/:event` returns them: the API's catalogue at
 * `GET /v1/connectors/triggers` has the same ones (test/polling.test.ts holds them equal). `id` is the event id;
 * the record's own id is under the trigger's id field (`reviewId`, `customerId`, …). Names and addresses are made
 * up: example.com, 555-01xx.
 */

/** An item of the catalogue: its event id follows the trigger's place in the catalogue (`evt_1042` is the first). */
const item = (eventId, type, fields) => ({ id: eventId, type, createdAt: '2026-11-20T14:03:12.000Z', ...fields })

const review = item('evt_1042', 'review.created', {
  reviewId: 'rev_4kQ9xT1mZb7sW2',
  productId: 'shopify-8123456789',
  orderId: '1042',
  rating: 5,
  title: 'Fits perfectly, fast delivery',
  body: 'Ordered a medium and it fits exactly as the size chart says. The fabric is thicker than I expected.',
  authorName: 'Maya R.',
  authorEmailLast4: '.com',
  verified: true,
  status: 'pending',
  helpfulCount: 0,
  media: [],
  source: 'storefront',
  reply: null,
  writtenAt: '2026-11-20T14:03:11.000Z',
  updatedAt: '2026-11-20T14:03:12.000Z'
})
const { id: _reviewEvent, type: _reviewType, createdAt: _reviewAt, ...reviewFields } = review

const CUSTOMER_ID = 'cus_7Hn2kQ4xW9pLm3'

const order = item('evt_1047', 'order.upserted', {
  platformOrderId: '1042',
  customerEmail: 'maya.roberts@example.com',
  customerName: 'Maya Roberts',
  platformCustomerId: 'shopify-6610234567',
  customerId: CUSTOMER_ID,
  total: 79.9,
  currency: 'EUR',
  placedAt: '2026-11-12T09:41:00.000Z',
  fulfilledAt: '2026-11-14T16:20:00.000Z',
  lineItems: [{ platformProductId: 'shopify-8123456789', quantity: 1 }],
  affiliateCode: null,
  reviewRequest: { state: 'scheduled', reason: 'fulfilled; sending after the delivery delay', scheduledFor: '2026-11-17T16:20:00.000Z' },
  platformUpdatedAt: '2026-11-14T16:20:00.000Z',
  updatedAt: '2026-11-14T16:20:05.000Z'
})
const { id: _orderEvent, type: _orderType, createdAt: _orderAt, ...orderFields } = order

const customerFields = {
  customerId: CUSTOMER_ID,
  platformCustomerId: 'shopify-6610234567',
  email: 'maya.roberts@example.com',
  firstName: 'Maya',
  lastName: 'Roberts',
  phone: '+1 555 0100 142',
  birthday: { month: 4, day: 12, year: null },
  updatedAt: '2026-11-12T09:40:58.000Z'
}

/** A loyalty grant as the ledger appends it: the account, its customer, and the ledger entry. */
const loyaltyGrant = ({ points, balance, kind, description, key }, extra) => ({
  loyaltyAccountId: 'lya_6Bv1nX4kRt8cM2',
  customerId: CUSTOMER_ID,
  balance,
  lifetimePoints: balance + 300,
  tier: 'Silver',
  updatedAt: '2026-11-20T06:00:00.000Z',
  customerEmail: 'maya.roberts@example.com',
  customerName: 'Maya Roberts',
  points,
  reason: kind,
  description,
  entry: {
    id: 'lle_88412',
    kind,
    points,
    balanceAfter: balance,
    reason: description,
    idempotencyKey: key,
    createdAt: '2026-11-20T06:00:00.000Z'
  },
  ...extra
})

const GALLERY_ID = 'gal_1Nc6vD9rKs2pW8'

/** One sample per trigger of the API's catalogue, by event type. */
const triggers = {
  'review.created': review,
  'review.published': item('evt_1043', 'review.published', { ...reviewFields, status: 'published', helpfulCount: 2 }),
  'review.updated': item('evt_1044', 'review.updated', {
    ...reviewFields,
    status: 'published',
    reply: { body: 'Thank you, Maya!', repliedAt: '2026-11-21T08:15:00.000Z' },
    updatedAt: '2026-11-21T08:15:00.000Z'
  }),
  'review.deleted': item('evt_1045', 'review.deleted', { ...reviewFields, status: 'rejected', updatedAt: '2026-11-21T09:00:00.000Z' }),
  'product.upserted': item('evt_1046', 'product.upserted', {
    platformProductId: 'shopify-8123456789',
    title: 'Merino Crew Sweater',
    url: 'https://shop.example/products/merino-crew-sweater',
    imageUrl: 'https://cdn.shop.example/merino-crew-sweater.jpg',
    excludedFromReviewRequests: false,
    exclusionReason: null,
    categoryIds: [],
    platformUpdatedAt: '2026-11-19T10:02:40.000Z',
    updatedAt: '2026-11-19T10:02:45.000Z'
  }),
  'order.upserted': order,
  'order.review_request.updated': item('evt_1048', 'order.review_request.updated', {
    ...orderFields,
    reviewRequest: { state: 'sent', reason: null, scheduledFor: '2026-11-17T16:20:00.000Z' },
    updatedAt: '2026-11-17T16:20:03.000Z'
  }),
  'loyalty.birthday_reward': item(
    'evt_1049',
    'loyalty.birthday_reward',
    loyaltyGrant({
      points: 200,
      balance: 1450,
      kind: 'birthday',
      description: 'Birthday reward 2026',
      key: '2026'
    }, { year: 2026 })
  ),
  'loyalty.referral_reward': item(
    'evt_1050',
    'loyalty.referral_reward',
    loyaltyGrant({
      points: 500,
      balance: 1950,
      kind: 'referral',
      description: 'Referral: a referred friend placed their first order',
      key: 'ref_2Gm5sK8wQd4nT1'
    }, { referralId: 'ref_2Gm5sK8wQd4nT1', referredEmail: 'sam.lee@example.com', orderId: '1043', role: 'referrer' })
  ),
  'customer.created': item('evt_1051', 'customer.created', customerFields),
  'customer.updated': item('evt_1052', 'customer.updated', {
    ...customerFields,
    phone: '+1 555 0100 188',
    updatedAt: '2026-11-21T10:30:00.000Z'
  }),
  'customer.deleted': item('evt_1053', 'customer.deleted', { customerId: CUSTOMER_ID, orderIds: ['1042'], reviewIds: [review.reviewId] }),
  'product.deleted': item('evt_1054', 'product.deleted', { platformProductId: 'shopify-8123456789' }),
  'order.deleted': item('evt_1055', 'order.deleted', { platformOrderId: '1042' }),
  'review_incentive.issued': item('evt_1056', 'review_incentive.issued', {
    rewardId: 'rii_6Tq3mV8cXk2nR5',
    incentiveType: 'coupon',
    incentiveId: 'rin_2Wp7hL4sNc9bD1',
    reviewId: review.reviewId,
    productId: review.productId,
    status: 'issued',
    code: 'THANKYOU-7QX2',
    points: null,
    customerId: null
  }),
  'affiliate.referral_recorded': item('evt_1057', 'affiliate.referral_recorded', {
    referralId: 'ref_9Jd4kS1vYb6mQ8',
    affiliateId: 'aff_3Lx8pR2fGz5tH7',
    orderId: '1042',
    currency: 'EUR',
    orderTotalCents: 7990,
    commissionRate: '0.1',
    commissionCents: 799,
    commissionUsdCents: 863,
    usdRate: '1.08',
    capped: false,
    status: 'payable',
    updatedAt: '2026-11-12T09:41:02.000Z'
  }),
  'gallery.photo.created': item('evt_1058', 'gallery.photo.created', {
    photoId: 'gph_5Rk2wN7dPq3xC9',
    galleryId: GALLERY_ID,
    imageUrl: 'https://api.evidence-hub.example/v1/uploads/upl_8Mv3tB6qLr1sZ4',
    caption: 'Hiking in the new sweater',
    authorName: 'Maya R.',
    authorEmailLast4: '.com',
    status: 'pending',
    favouriteCount: 0,
    updatedAt: '2026-11-20T14:03:11.000Z'
  }),
  'gallery.lead.created': item('evt_1059', 'gallery.lead.created', {
    leadId: 'lead_4Fh9qT2mWc7kJ6',
    galleryId: GALLERY_ID,
    email: 'maya.roberts@example.com',
    name: 'Maya Roberts',
    consent: true,
    updatedAt: '2026-11-20T14:03:11.000Z'
  }),
  'email_suppression.created': item('evt_1060', 'email_suppression.created', {
    email: 'sam.lee@example.com',
    reason: 'unsubscribed',
    updatedAt: '2026-11-20T14:03:11.000Z'
  })
}

/** What `PUT /v1/products` stores (Create or Update Product's result), not a trigger item. */
const { platformProductId, title, url, imageUrl, excludedFromReviewRequests, exclusionReason } = triggers['product.upserted']
const product = {
  platformProductId,
  title,
  url,
  imageUrl,
  excludedFromReviewRequests,
  exclusionReason,
  createdAt: '2026-11-02T08:00:00.000Z',
  updatedAt: '2026-11-19T10:02:45.000Z'
}

/** What `PATCH /v1/reviews/:id` answers: the review record itself, so `id` is the review's id. */
const { reviewId, ...reviewRecord } = reviewFields
const repliedReview = {
  id: reviewId,
  createdAt: review.createdAt,
  ...reviewRecord,
  status: 'published',
  reply: { body: 'Thank you, Maya!', repliedAt: '2026-11-21T08:15:00.000Z' }
}

module.exports = { triggers, review, order, product, repliedReview }
