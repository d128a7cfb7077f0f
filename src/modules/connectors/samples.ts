/**
 * The records the catalogue's samples are made of, each in the shape its writer appends (test/connectors/
 * trigger-samples.test.ts holds them to it). Names, addresses and numbers are made up: example.com, 555-01xx.
 */
export const REVIEW = {
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

export const CUSTOMER = {
  id: 'cus_7Hn2kQ4xW9pLm3',
  platformCustomerId: 'shopify-6610234567',
  email: 'maya.roberts@example.com',
  firstName: 'Maya',
  lastName: 'Roberts',
  phone: '+1 555 0100 142',
  birthday: { month: 4, day: 12, year: null },
  createdAt: '2026-11-12T09:40:58.000Z',
  updatedAt: '2026-11-12T09:40:58.000Z'
}

export const ORDER = {
  platformOrderId: '1042',
  customerEmail: 'maya.roberts@example.com',
  customerName: 'Maya Roberts',
  platformCustomerId: CUSTOMER.platformCustomerId,
  customerId: CUSTOMER.id,
  total: 79.9,
  currency: 'EUR',
  placedAt: '2026-11-12T09:41:00.000Z',
  fulfilledAt: '2026-11-14T16:20:00.000Z',
  lineItems: [{ platformProductId: 'shopify-8123456789', quantity: 1 }],
  affiliateCode: null,
  reviewRequest: { state: 'scheduled', reason: 'fulfilled; sending after the delivery delay', scheduledFor: '2026-11-17T16:20:00.000Z' },
  platformUpdatedAt: '2026-11-14T16:20:00.000Z',
  createdAt: '2026-11-12T09:41:02.000Z',
  updatedAt: '2026-11-14T16:20:05.000Z'
}

/** What the loyalty ledger appends for a grant (modules/loyalty/ledger.ts): the account, the customer, the entry. */
export function loyaltyGrant (
  grant: { points: number, balance: number, kind: string, description: string, key: string },
  extra: Record<string, unknown>
) {
  const at = '2026-11-20T06:00:00.000Z'
  return {
    id: 'lya_6Bv1nX4kRt8cM2',
    customerId: CUSTOMER.id,
    balance: grant.balance,
    lifetimePoints: grant.balance + 300,
    tier: 'Silver',
    createdAt: '2026-03-02T11:20:00.000Z',
    updatedAt: at,
    customerEmail: CUSTOMER.email,
    customerName: 'Maya Roberts',
    points: grant.points,
    reason: grant.kind,
    description: grant.description,
    entry: {
      id: 'lle_88412',
      kind: grant.kind,
      points: grant.points,
      balanceAfter: grant.balance,
      reason: grant.description,
      idempotencyKey: grant.key,
      createdAt: at
    },
    ...extra
  }
}

export const GALLERY_ID = 'gal_1Nc6vD9rKs2pW8'
