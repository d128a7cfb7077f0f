import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { REASON_CODES } from './reasons.js'

/**
 * The review statuses of docs/contract/catalog.md#reviews (not imported: reviews write the aggregates, so they import
 * us).
 */
const Status = Type.Union([Type.Literal('pending'), Type.Literal('published'), Type.Literal('rejected')])
/** A date or a full ISO 8601 date-time (integrators pass what they have); a date-time counts its UTC day. */
const Day = (description: string) =>
  Type.Union([Type.String({ format: 'date', maxLength: 10 }), Type.String({ format: 'date-time', maxLength: 35 })], {
    description: `${description} (YYYY-MM-DD, or an ISO 8601 date-time, which stands for its UTC day; inclusive; 1970-01-01 to 9999-12-31)`
  })
const Interval = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], {
  default: 'day',
  description: 'Weeks start on Monday (ISO 8601), months on the 1st; the first and last period count only the days inside from..to'
})
const RangeQuery = {
  from: Type.Optional(Day('First day; default 29 days before `to`')),
  to: Type.Optional(Day('Last day; default today')),
  interval: Type.Optional(Interval)
}
const rangeDoc = 'Counts are exact (kept as data arrives, summed from whole UTC days). A series holds at most 1,000 ' +
  'periods; a longer one, a reversed range or a date outside 1970–9999 is refused with 400 `invalid_request`.'
const Average = Type.Union([Type.Number({ minimum: 1, maximum: 5 }), Type.Null()], {
  description: 'Rounded to 2 decimals; null when there is no review'
})
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const Range = { from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }), interval: Interval }

export const reviewAnalytics = {
  tags: ['analytics'],
  summary: 'Review counts and average rating over time, with the rating distribution',
  description: 'Reviews by the day they were written (an imported review by its original date), of every status ' +
    'unless `status` narrows them, of the whole store or of one product. ' + rangeDoc,
  querystring: Type.Object({
    ...RangeQuery,
    productId: Type.Optional(Type.String({ minLength: 1, maxLength: 191, description: 'A platformProductId' })),
    status: Type.Optional(Status)
  }),
  response: {
    200: Type.Object({
      ...Range,
      productId: Nullable(Type.String()),
      status: Nullable(Status),
      series: Type.Array(
        Type.Object({
          period: Type.String({ format: 'date', description: 'The first day of the period' }),
          count: Type.Integer(),
          averageRating: Average
        })
      ),
      distribution: Type.Object({ 1: Type.Integer(), 2: Type.Integer(), 3: Type.Integer(), 4: Type.Integer(), 5: Type.Integer() }, {
        description: 'Reviews per rating over from..to'
      }),
      totals: Type.Object({ count: Type.Integer(), averageRating: Average })
    }),
    ...authErrors
  }
}

const Engagement = {
  helpfulVotes: Type.Integer({ description: 'Storefront "helpful" votes' }),
  favourites: Type.Integer({ description: 'Gallery photos marked favourite' }),
  leads: Type.Integer({ description: 'Gallery leads (emails left by shoppers)' }),
  videoUploads: Type.Integer({ description: 'Review videos uploaded' })
}

export const storefrontAnalytics = {
  tags: ['analytics'],
  summary: 'Storefront engagement over time: helpful votes, favourites, leads and video uploads',
  description: rangeDoc,
  querystring: Type.Object(RangeQuery),
  response: {
    200: Type.Object({
      ...Range,
      series: Type.Array(Type.Object({ period: Type.String({ format: 'date' }), ...Engagement })),
      totals: Type.Object(Engagement)
    }),
    ...authErrors
  }
}

const codes = Object.entries(REASON_CODES).map(([code, text]) => `\`${code}\` (${text})`).join(', ')

export const reviewRequestAnalytics = {
  tags: ['analytics'],
  summary: 'The review request funnel: scheduled, sent, failed, skipped and reviewed, with skip and failure reasons',
  description: 'Every order with a review request, counted by its current state (see `GET /orders`). `reviewed` ' +
    'counts sent requests whose order has at least one review; `conversionRate` is reviewed / sent (null before ' +
    `anything is sent). Reasons are grouped by code: ${codes}.`,
  response: {
    200: Type.Object({
      scheduled: Type.Integer(),
      sent: Type.Integer(),
      failed: Type.Integer(),
      skipped: Type.Integer(),
      reviewed: Type.Integer(),
      conversionRate: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
      reasons: Type.Array(Type.Object({
        state: Type.Union([Type.Literal('skipped'), Type.Literal('failed')]),
        code: Type.String(),
        description: Type.String(),
        count: Type.Integer()
      }), { description: 'Most frequent first' })
    }),
    ...authErrors
  }
}
