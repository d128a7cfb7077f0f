/**
 * The trigger catalogue of the connector layer (decisions.md sections 8 and 9): every event type an automation
 * platform can poll or subscribe to, the resource whose read scope it needs, and a sample item in the exact shape
 * that polling and hook deliveries produce. One list; the routes, the scope check and the docs read it.
 */
export const TRIGGER_RESOURCES = ['reviews', 'products', 'orders', 'loyalty'] as const
export type TriggerResource = typeof TRIGGER_RESOURCES[number]

export interface TriggerDefinition {
  key: string
  label: string
  description: string
  resource: TriggerResource
  /** Where the record's own `id` goes in an item, since `id` is the event id (what platforms de-duplicate on). */
  idField: string
  /** The event's `data` as the writers append it; `sample` in the catalogue is this turned into an item. */
  sampleData: Record<string, unknown>
}

const REVIEW = {
  id: 'rev_4kQ9xT1mZb7sW2',
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

const ORDER = {
  platformOrderId: '1042',
  customerEmail: 'maya.roberts@example.com',
  customerName: 'Maya Roberts',
  total: 79.9,
  currency: 'EUR',
  placedAt: '2026-11-12T09:41:00.000Z',
  fulfilledAt: '2026-11-14T16:20:00.000Z',
  lineItems: [{ platformProductId: 'shopify-8123456789', quantity: 1 }],
  reviewRequest: { state: 'scheduled', reason: 'fulfilled; sending after the delivery delay', scheduledFor: '2026-11-17T16:20:00.000Z' },
  updatedAt: '2026-11-14T16:20:05.000Z'
}

export const TRIGGERS: readonly TriggerDefinition[] = [
  {
    key: 'review.created',
    label: 'New Review',
    description: 'A customer wrote a review, or one was imported or created through the API.',
    resource: 'reviews',
    idField: 'reviewId',
    sampleData: REVIEW
  },
  {
    key: 'review.published',
    label: 'Review Published',
    description: 'A review was approved and is now shown on the storefront.',
    resource: 'reviews',
    idField: 'reviewId',
    sampleData: { ...REVIEW, status: 'published', helpfulCount: 2 }
  },
  {
    key: 'review.updated',
    label: 'Review Updated',
    description: 'A review changed: its status, the store\'s reply or its content.',
    resource: 'reviews',
    idField: 'reviewId',
    sampleData: { ...REVIEW, status: 'published', reply: { body: 'Thank you, Maya!', repliedAt: '2026-11-21T08:15:00.000Z' }, updatedAt: '2026-11-21T08:15:00.000Z' }
  },
  {
    key: 'review.deleted',
    label: 'Review Deleted',
    description: 'A review was deleted.',
    resource: 'reviews',
    idField: 'reviewId',
    sampleData: { ...REVIEW, status: 'rejected', updatedAt: '2026-11-21T09:00:00.000Z' }
  },
  {
    key: 'product.upserted',
    label: 'Product Created or Updated',
    description: 'A product was created or replaced by a product sync.',
    resource: 'products',
    idField: 'productId',
    sampleData: {
      platformProductId: 'shopify-8123456789',
      title: 'Merino Crew Sweater',
      url: 'https://shop.example/products/merino-crew-sweater',
      imageUrl: 'https://cdn.shop.example/merino-crew-sweater.jpg',
      excludedFromReviewRequests: false,
      exclusionReason: null,
      updatedAt: '2026-11-19T10:02:45.000Z'
    }
  },
  {
    key: 'order.upserted',
    label: 'New or Updated Order',
    description: 'An order was created or replaced by an order sync.',
    resource: 'orders',
    idField: 'orderId',
    sampleData: ORDER
  },
  {
    key: 'order.review_request.updated',
    label: 'Review Request Status Changed',
    description: 'The review request of an order was scheduled, sent, failed or skipped.',
    resource: 'orders',
    idField: 'orderId',
    sampleData: { ...ORDER, reviewRequest: { state: 'sent', reason: null, scheduledFor: '2026-11-17T16:20:00.000Z' }, updatedAt: '2026-11-17T16:20:03.000Z' }
  },
  {
    key: 'loyalty.birthday_reward',
    label: 'Birthday Reward Granted',
    description: 'A loyalty member received their birthday reward.',
    resource: 'loyalty',
    idField: 'loyaltyAccountId',
    sampleData: { customerEmail: 'maya.roberts@example.com', customerName: 'Maya Roberts', points: 200, balance: 1450, reason: 'birthday' }
  },
  {
    key: 'loyalty.referral_reward',
    label: 'Referral Reward Granted',
    description: 'A loyalty member was rewarded for a referred friend\'s first order.',
    resource: 'loyalty',
    idField: 'loyaltyAccountId',
    sampleData: { customerEmail: 'maya.roberts@example.com', customerName: 'Maya Roberts', points: 500, balance: 1950, reason: 'referral', referredEmail: 'sam.lee@example.com' }
  }
]

const BY_KEY = new Map(TRIGGERS.map((trigger) => [trigger.key, trigger]))

export const EVENT_TYPES: readonly string[] = TRIGGERS.map((trigger) => trigger.key)

export function triggerFor (eventType: string): TriggerDefinition | undefined {
  return BY_KEY.get(eventType)
}
