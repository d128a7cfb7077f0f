import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, NullableDateTime, PageQuery, SyncPaged, SyncQuery } from '../../schemas.js'
import { BulkResult } from '../products/index.js'

const State = Type.Union([Type.Literal('scheduled'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('skipped')])
const NullableString = (options: object) => Type.Union([Type.String(options), Type.Null()])

const LineItem = Type.Object({
  platformProductId: Type.String({ minLength: 1, maxLength: 191 }),
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 })
}, { additionalProperties: false })

/** docs/contract/api-conventions.md#bulk-upserts. Every field is written on each upsert: an omitted one is cleared. */
export const OrderItem = Type.Object({
  platformOrderId: Type.String({ minLength: 1, maxLength: 191, description: 'The upsert key' }),
  customerEmail: Type.Optional(NullableString({ format: 'email', maxLength: 320 })),
  platformCustomerId: Type.Optional(
    NullableString({
      minLength: 1,
      maxLength: 191,
      description: 'Links the order to the customer with this platform id (else to the customer with customerEmail)'
    })
  ),
  customerName: Type.Optional(NullableString({ maxLength: 200 })),
  total: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: 999_999_999_999, description: 'Stored rounded half-up to the cent' }), Type.Null()])
  ),
  currency: Type.Optional(NullableString({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. USD' })),
  placedAt: Type.Optional(NullableString({ format: 'date-time', description: 'ISO 8601 with a time zone, within 1970–9999' })),
  fulfilledAt: Type.Optional(NullableString({ format: 'date-time', description: 'Setting it schedules the review request' })),
  lineItems: Type.Optional(Type.Array(LineItem, { maxItems: 500 })),
  affiliateCode: Type.Optional(
    NullableString({
      minLength: 1,
      maxLength: 64,
      description: 'An affiliate\'s code (any case): records one referral for the order (see GET /affiliates/{id}/referrals)'
    })
  ),
  platformUpdatedAt: Type.Optional(
    NullableString({
      format: 'date-time',
      description: 'The platform\'s own last change: an item older than the stored order\'s is left alone (out-of-order delivery)'
    })
  )
}, { additionalProperties: false })

const stateDoc = 'Transitions: unfulfilled orders have no state (null). An upsert with `fulfilledAt` moves the request to ' +
  '`scheduled` (`scheduledFor` = fulfilledAt + the configured delay), or to `skipped` when every product is excluded ' +
  'from review requests (the reason names the products, cut to 1,000 characters), the order has no customer email ' +
  'or no line items, or the request would fall after 9999-12-31. Each ' +
  'upsert recomputes `scheduled`/`skipped`. When due, the scheduler moves `scheduled` to `sent` (mail handed to the ' +
  'transport), `failed` (the transport refused; the reason says why) or `skipped` (products excluded since). `sent` ' +
  'and `failed` are final. Every change appends `order.review_request.updated`.'

export const ReviewRequest = Type.Object({
  state: Type.Union([State, Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  scheduledFor: NullableDateTime,
  sequenceId: Type.Optional(Type.String({ description: 'With an active email sequence: the sequence the request follows' })),
  step: Type.Optional(
    Type.Integer({ description: 'With an email sequence: the step (1-based) scheduled next, or the last one sent once `sent`' })
  )
}, { description: stateDoc })

export const Order = Type.Object({
  platformOrderId: Type.String(),
  customerEmail: Type.Union([Type.String(), Type.Null()]),
  customerName: Type.Union([Type.String(), Type.Null()]),
  platformCustomerId: Type.Union([Type.String(), Type.Null()]),
  customerId: Type.Union([Type.String(), Type.Null()], {
    description: 'The linked customer (`cus_…`): by platformCustomerId, else by customerEmail, when the order was last written'
  }),
  total: Type.Union([Type.Number(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  placedAt: NullableDateTime,
  fulfilledAt: NullableDateTime,
  lineItems: Type.Array(LineItem),
  reviewRequest: ReviewRequest,
  affiliateCode: Type.Union([Type.String(), Type.Null()]),
  platformUpdatedAt: NullableDateTime,
  createdAt: DateTime,
  updatedAt: DateTime
})

export const upsertOrders = {
  tags: ['orders'],
  summary: 'Upsert up to 250 orders keyed on platformOrderId; each item replaces the stored order',
  description: 'As PUT /products: items are independent (check `failed`), more than 250 is `batch_too_large`, an ' +
    'identical re-send changes nothing. Each changed order appends `order.upserted`, and ' +
    '`order.review_request.updated` when its review request changed. ' + stateDoc,
  body: Type.Object({ orders: Type.Array(OrderItem, { maxItems: 250 }) }, {
    examples: [{
      orders: [{
        platformOrderId: '#1042',
        customerEmail: 'ann@example.com',
        customerName: 'Ann Lee',
        total: 89.5,
        currency: 'EUR',
        placedAt: '2026-11-20T09:12:00Z',
        fulfilledAt: '2026-11-21T15:00:00Z',
        lineItems: [{ platformProductId: 'sku-1001', quantity: 2 }]
      }]
    }]
  }),
  response: { 200: BulkResult, ...authErrors }
}

export const listOrders = {
  tags: ['orders'],
  summary: 'List orders, most recently updated first; with updatedSince or cursor, changes oldest first (incremental sync)',
  querystring: Type.Object({
    ...PageQuery,
    ...SyncQuery,
    reviewRequestState: Type.Optional(State)
  }),
  response: { 200: SyncPaged(Order), ...authErrors }
}

export const getOrder = {
  tags: ['orders'],
  summary: 'One order by its platform id, with its review request state',
  params: Type.Object({ platformOrderId: Type.String({ minLength: 1, maxLength: 191 }) }),
  response: { 200: Order, ...authErrors }
}
