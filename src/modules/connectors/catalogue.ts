import type { Resource } from '../../lib/permissions.js'
import { CUSTOMER, GALLERY_ID, loyaltyGrant, ORDER, REVIEW } from './samples.js'

/**
 * The trigger catalogue of the connector layer (docs/contract/event-visibility.md#events and
 * docs/contract/connectors.md#triggers-and-polling): every event type an automation platform can poll or subscribe to,
 * the resource whose read scope it needs, and a sample item in the exact shape that polling and hook deliveries
 * produce. One list; the routes, the scope check and the docs read it.
 */
export const TRIGGER_RESOURCES = [
  'reviews', 'products', 'orders', 'loyalty', 'customers', 'review-incentives', 'affiliates', 'galleries', 'email-suppressions'
] as const satisfies readonly Resource[]
export type TriggerResource = typeof TRIGGER_RESOURCES[number]

export interface TriggerDefinition {
  key: string
  label: string
  description: string
  resource: TriggerResource
  /** Where the record's own `id` goes in an item, since `id` is the event id (what platforms de-duplicate on). */
  idField: string
  /** Where the record's own `type` goes (a reward's `coupon` or `points`), since `type` is the event type. */
  typeField?: string
  /** The event's `data` as the writers append it; `sample` in the catalogue is this turned into an item. */
  sampleData: Record<string, unknown>
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
    sampleData: {
      ...REVIEW,
      status: 'published',
      reply: { body: 'Thank you, Maya!', repliedAt: '2026-11-21T08:15:00.000Z' },
      updatedAt: '2026-11-21T08:15:00.000Z'
    }
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
      categoryIds: [],
      platformUpdatedAt: '2026-11-19T10:02:40.000Z',
      createdAt: '2026-10-02T08:15:00.000Z',
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
    sampleData: {
      ...ORDER,
      reviewRequest: { state: 'sent', reason: null, scheduledFor: '2026-11-17T16:20:00.000Z' },
      updatedAt: '2026-11-17T16:20:03.000Z'
    }
  },
  {
    key: 'loyalty.birthday_reward',
    label: 'Birthday Reward Granted',
    description: 'A loyalty member received their birthday reward.',
    resource: 'loyalty',
    idField: 'loyaltyAccountId',
    sampleData: loyaltyGrant({ points: 200, balance: 1450, kind: 'birthday', description: 'Birthday reward 2026', key: '2026' }, {
      year: 2026
    })
  },
  {
    key: 'loyalty.referral_reward',
    label: 'Referral Reward Granted',
    description: 'A loyalty member was rewarded for a referred friend\'s first order.',
    resource: 'loyalty',
    idField: 'loyaltyAccountId',
    sampleData: loyaltyGrant({
      points: 500,
      balance: 1950,
      kind: 'referral',
      description: 'Referral: a referred friend placed their first order',
      key: 'ref_2Gm5sK8wQd4nT1'
    }, {
      referralId: 'ref_2Gm5sK8wQd4nT1',
      referredEmail: 'sam.lee@example.com',
      orderId: '1043',
      role: 'referrer'
    })
  },
  // Wave 2 (docs/contract/resources.md#common-rules). Appended: a sample's event id follows its place, and the Zapier
  // app's lib/samples.js copies every sample with its id, so a new trigger goes at the end.
  {
    key: 'customer.created',
    label: 'New Customer',
    description: 'A customer was added by a customer sync.',
    resource: 'customers',
    idField: 'customerId',
    sampleData: CUSTOMER
  },
  {
    key: 'customer.updated',
    label: 'Customer Updated',
    description: 'A customer\'s details (name, address, phone or birthday) were changed by a customer sync.',
    resource: 'customers',
    idField: 'customerId',
    sampleData: { ...CUSTOMER, phone: '+1 555 0100 188', updatedAt: '2026-11-21T10:30:00.000Z' }
  },
  {
    key: 'customer.deleted',
    label: 'Customer Erased',
    description: 'A customer\'s personal data was erased (a privacy request); their orders and reviews were kept without it.',
    resource: 'customers',
    idField: 'customerId',
    sampleData: { id: CUSTOMER.id, orderIds: ['1042'], reviewIds: [REVIEW.id] }
  },
  {
    key: 'product.deleted',
    label: 'Product Deleted',
    description: 'A product was deleted in the shop platform and removed here.',
    resource: 'products',
    idField: 'productId',
    sampleData: { platformProductId: 'shopify-8123456789' }
  },
  {
    key: 'order.deleted',
    label: 'Order Deleted',
    description: 'An order was deleted in the shop platform and removed here.',
    resource: 'orders',
    idField: 'orderId',
    sampleData: { platformOrderId: '1042' }
  },
  {
    key: 'review_incentive.issued',
    label: 'Review Reward Issued',
    description: 'A published review earned its author a reward: a coupon code or loyalty points. Status `issued` means ' +
      'the reward was given; `pool_empty` means no coupon code was left, `no_customer` that no customer has the author\'s address.',
    resource: 'review-incentives',
    idField: 'rewardId',
    typeField: 'incentiveType',
    sampleData: {
      id: 'rii_6Tq3mV8cXk2nR5',
      incentiveId: 'rin_2Wp7hL4sNc9bD1',
      type: 'coupon',
      reviewId: REVIEW.id,
      productId: REVIEW.productId,
      status: 'issued',
      code: 'THANKYOU-7QX2',
      points: null,
      customerId: null
    }
  },
  {
    key: 'affiliate.referral_recorded',
    label: 'New Affiliate Referral',
    description: 'An order came in with an affiliate\'s code, and their commission was recorded (`pending_rate` while ' +
      'the store has no USD rate for the order\'s currency).',
    resource: 'affiliates',
    idField: 'referralId',
    sampleData: {
      id: 'ref_9Jd4kS1vYb6mQ8',
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
      createdAt: '2026-11-12T09:41:02.000Z',
      updatedAt: '2026-11-12T09:41:02.000Z'
    }
  },
  {
    key: 'gallery.photo.created',
    label: 'New Gallery Photo',
    description: 'A shopper sent a photo to a gallery; it waits for moderation before it is shown.',
    resource: 'galleries',
    idField: 'photoId',
    sampleData: {
      id: 'gph_5Rk2wN7dPq3xC9',
      galleryId: GALLERY_ID,
      imageUrl: 'https://api.evidence-hub.example/v1/uploads/upl_8Mv3tB6qLr1sZ4',
      caption: 'Hiking in the new sweater',
      authorName: 'Maya R.',
      authorEmailLast4: '.com',
      status: 'pending',
      favouriteCount: 0,
      createdAt: '2026-11-20T14:03:11.000Z',
      updatedAt: '2026-11-20T14:03:11.000Z'
    }
  },
  {
    key: 'gallery.lead.created',
    label: 'New Gallery Lead',
    description: 'A shopper left their email address on a gallery\'s sign-up form.',
    resource: 'galleries',
    idField: 'leadId',
    sampleData: {
      id: 'lead_4Fh9qT2mWc7kJ6',
      galleryId: GALLERY_ID,
      email: 'maya.roberts@example.com',
      name: 'Maya Roberts',
      consent: true,
      createdAt: '2026-11-20T14:03:11.000Z',
      updatedAt: '2026-11-20T14:03:11.000Z'
    }
  },
  {
    key: 'email_suppression.created',
    label: 'Email Address Suppressed',
    description: 'An address was added to the do-not-mail list: it unsubscribed, bounced, complained, or was added by hand.',
    resource: 'email-suppressions',
    // Suppressions are keyed by their address, which the item carries as `email`; there is no id to move.
    idField: 'suppressionId',
    sampleData: {
      email: 'sam.lee@example.com',
      reason: 'unsubscribed',
      createdAt: '2026-11-20T14:03:11.000Z',
      updatedAt: '2026-11-20T14:03:11.000Z'
    }
  }
]

const BY_KEY = new Map(TRIGGERS.map((trigger) => [trigger.key, trigger]))

export const EVENT_TYPES: readonly string[] = TRIGGERS.map((trigger) => trigger.key)

export function triggerFor (eventType: string): TriggerDefinition | undefined {
  return BY_KEY.get(eventType)
}
