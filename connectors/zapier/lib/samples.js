'use strict'

/**
 * Sample items exactly as `GET /v1/connectors/triggers/:event` returns them (the API's catalogue at
 * `GET /v1/connectors/triggers` has the same ones): `id` is the event id, the record's id is `reviewId`.
 */
const review = {
  id: 'evt_1042',
  type: 'review.created',
  createdAt: '2026-11-20T14:03:12.000Z',
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
}

const order = {
  id: 'evt_1047',
  type: 'order.upserted',
  createdAt: '2026-11-20T14:03:12.000Z',
  platformOrderId: '1042',
  customerEmail: 'maya.roberts@example.com',
  customerName: 'Maya Roberts',
  platformCustomerId: 'shopify-6610234567',
  customerId: 'cus_7Hn2kQ4xW9pLm3',
  total: 79.9,
  currency: 'EUR',
  placedAt: '2026-11-12T09:41:00.000Z',
  fulfilledAt: '2026-11-14T16:20:00.000Z',
  lineItems: [{ platformProductId: 'shopify-8123456789', quantity: 1 }],
  affiliateCode: null,
  reviewRequest: { state: 'scheduled', reason: 'fulfilled; sending after the delivery delay', scheduledFor: '2026-11-17T16:20:00.000Z' },
  platformUpdatedAt: '2026-11-14T16:20:00.000Z',
  updatedAt: '2026-11-14T16:20:05.000Z'
}

const product = {
  platformProductId: 'shopify-8123456789',
  title: 'Merino Crew Sweater',
  url: 'https://shop.example/products/merino-crew-sweater',
  imageUrl: 'https://cdn.shop.example/merino-crew-sweater.jpg',
  excludedFromReviewRequests: false,
  exclusionReason: null,
  createdAt: '2026-11-02T08:00:00.000Z',
  updatedAt: '2026-11-19T10:02:45.000Z'
}

/** What `PATCH /v1/reviews/:id` answers: the review record itself, so `id` is the review's id. */
const { id: _eventId, type: _type, reviewId, ...reviewRecord } = review
const repliedReview = { id: reviewId, ...reviewRecord, status: 'published', reply: { body: 'Thank you, Maya!', repliedAt: '2026-11-21T08:15:00.000Z' } }

module.exports = { review, order, product, repliedReview }
