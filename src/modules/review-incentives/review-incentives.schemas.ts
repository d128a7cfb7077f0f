import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../schemas.js'

const IncentiveType = Type.Union([Type.Literal('coupon'), Type.Literal('points')])
const Rules = {
  points: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], {
      description: 'Required for `points`; not allowed for `coupon`'
    })
  ),
  minRating: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()], { description: 'Only reviews rated at least this' })
  ),
  requiresMedia: Type.Optional(Type.Boolean({ description: 'Only reviews with a photo or video (default false)' })),
  verifiedOnly: Type.Boolean({ description: 'Only verified reviews (the author is the order\'s customer)' })
}

export const Incentive = Type.Object({
  id: Type.String(),
  type: IncentiveType,
  points: Type.Union([Type.Integer(), Type.Null()]),
  minRating: Type.Union([Type.Integer(), Type.Null()]),
  requiresMedia: Type.Boolean(),
  verifiedOnly: Type.Boolean(),
  pool: Type.Object({ available: Type.Integer(), issued: Type.Integer() }, {
    description: 'The coupon codes left and given out (0 and 0 for points)'
  }),
  poolEmpty: Type.Object({ count: Type.Integer(), lastAt: NullableDateTime }, {
    description: 'Qualifying reviews that found the pool empty'
  }),
  createdAt: DateTime,
  updatedAt: DateTime
})

const description = 'When a review is published, the first incentive (oldest first) whose rules it meets gives it one ' +
  'reward, at most one per review whatever happens to it later: a code from the pool, or points on the loyalty ' +
  'account of the customer with the author\'s address. Appends `review_incentive.issued` with `status` `issued`, ' +
  '`pool_empty` (no code was left: the review gets none, and the incentive counts it under `poolEmpty`) or ' +
  '`no_customer` (points, but no customer has the author\'s address).'

export const createIncentive = {
  tags: ['review-incentives'],
  summary: 'Create a review incentive',
  description,
  body: Type.Object({ type: IncentiveType, ...Rules }, {
    additionalProperties: false,
    examples: [{ type: 'coupon', minRating: 4, requiresMedia: true, verifiedOnly: true }, {
      type: 'points',
      points: 100,
      verifiedOnly: false
    }]
  }),
  response: { 201: Incentive, ...authErrors }
}

export const listIncentives = {
  tags: ['review-incentives'],
  summary: 'List review incentives, least recently updated first',
  querystring: Type.Object({ ...PageQuery, updatedSince: Type.Optional(Type.String({ format: 'date-time' })) }),
  response: { 200: Paged(Incentive), ...authErrors }
}

export const getIncentive = {
  tags: ['review-incentives'],
  summary: 'One review incentive',
  params: IdParams,
  response: { 200: Incentive, ...authErrors }
}

export const updateIncentive = {
  tags: ['review-incentives'],
  summary: 'Change a review incentive\'s rules',
  params: IdParams,
  body: Type.Object({ ...Rules, verifiedOnly: Type.Optional(Rules.verifiedOnly) }, {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ minRating: 5 }]
  }),
  response: { 200: Incentive, ...authErrors }
}

export const deleteIncentive = {
  tags: ['review-incentives'],
  summary: 'Delete a review incentive and its unused codes (rewards already given stay)',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}

export const addCodes = {
  tags: ['review-incentives'],
  summary: 'Add coupon codes to a coupon incentive\'s pool',
  description: 'Codes already in the pool are skipped (counted in `duplicates`). A points incentive has no pool: 409 `conflict`.',
  params: IdParams,
  body: Type.Object({
    codes: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), { minItems: 1, maxItems: 1000 })
  }, { additionalProperties: false, examples: [{ codes: ['THANKS-7F3A', 'THANKS-9C21'] }] }),
  response: {
    200: Type.Object({ added: Type.Integer(), duplicates: Type.Integer(), pool: Incentive.properties.pool }),
    ...authErrors,
    409: authErrors[400]
  }
}
