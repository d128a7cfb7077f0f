import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, ErrorBody, IdParams, PageQuery, SyncPaged, SyncQuery } from '../../schemas.js'

const Str = Type.String
const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()])
export const Status = Type.Union([Type.Literal('pending'), Type.Literal('published'), Type.Literal('rejected')])

/** docs/contract/catalog.md#reviewer-email. The reviewer's address is never shown: only its last four characters. */
export const Review = Type.Object({
  id: Str(),
  productId: Str({ description: 'The product\'s platformProductId' }),
  orderId: Type.Union([Str(), Type.Null()], { description: 'The order\'s platformOrderId' }),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  title: Type.Union([Str(), Type.Null()]),
  body: Str(),
  authorName: Str(),
  authorEmailLast4: Type.Union([Str(), Type.Null()], { description: 'Last 4 characters of the reviewer\'s email' }),
  verified: Type.Boolean({ description: 'The author email matches the customer email of the order named' }),
  status: Status,
  helpfulCount: Type.Integer(),
  media: Type.Array(Type.Object({ id: Str(), type: Type.Union([Type.Literal('image'), Type.Literal('video')]), url: Str(), mime: Str() })),
  source: Type.Union([Type.Literal('storefront'), Type.Literal('import'), Type.Literal('api')]),
  reply: Type.Union([Type.Object({ body: Str(), repliedAt: DateTime }), Type.Null()], { description: 'The merchant\'s public reply' }),
  writtenAt: DateTime,
  createdAt: DateTime,
  updatedAt: DateTime
})

export const listReviews = {
  tags: ['reviews'],
  summary:
    'List reviews, newest writtenAt first (imported reviews by their original date); with updatedSince or cursor, changes oldest first',
  querystring: Type.Object({
    ...PageQuery,
    ...SyncQuery,
    orderId: Type.Optional(Str({ minLength: 1, maxLength: 191 })),
    productId: Type.Optional(Str({ minLength: 1, maxLength: 191 })),
    verified: Type.Optional(Type.Boolean({ description: '`false` returns only unverified reviews' })),
    status: Type.Optional(Status),
    rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 }))
  }),
  response: { 200: SyncPaged(Review), ...authErrors }
}

export const getReview = { tags: ['reviews'], summary: 'One review', params: IdParams, response: { 200: Review, ...authErrors } }

export const updateReview = {
  tags: ['reviews'],
  summary: 'Moderate a review and set or clear the merchant reply',
  description: 'Publishing appends `review.published`; any other change appends `review.updated`.',
  params: IdParams,
  body: Type.Object({
    status: Type.Optional(Status),
    reply: Type.Optional(Type.Union([Str({ minLength: 1, maxLength: 5000 }), Type.Null()], { description: 'null removes the reply' }))
  }, { additionalProperties: false, minProperties: 1, examples: [{ status: 'published', reply: 'Thank you, Ann! Glad the shirt fits.' }] }),
  response: { 200: Review, ...authErrors }
}

export const deleteReview = {
  tags: ['reviews'],
  summary: 'Delete a review (appends `review.deleted`)',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}

const storefrontErrors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }
const storefrontDoc = 'Storefront: no credential. Send `x-store-env-id` and come from an origin the store allows ' +
  '(else 403 `origin_not_allowed`; calls without an Origin header are refused too). Limited per visitor IP.'

export const ReviewInput = {
  productId: Str({ minLength: 1, maxLength: 191 }),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  title: Type.Optional(Nullable(Str({ maxLength: 300 }))),
  body: Str({ minLength: 1, maxLength: 10_000 }),
  authorName: Str({ minLength: 1, maxLength: 200 }),
  orderId: Type.Optional(Nullable(Str({ minLength: 1, maxLength: 191 })))
}

export const submitReview = {
  tags: ['reviews'],
  summary: 'Submit a review from the storefront (stored as pending for moderation); 3/s and 5/min per IP',
  description: storefrontDoc,
  security: [],
  body: Type.Object({
    ...ReviewInput,
    authorEmail: Str({ format: 'email', maxLength: 320 }),
    mediaIds: Type.Optional(
      Type.Array(Str({ minLength: 1, maxLength: 64 }), {
        maxItems: 10,
        description: 'Ids from POST /uploads/image, and the videoId of POST /reviews/video-upload-url once its upload is done'
      })
    )
  }, {
    additionalProperties: false,
    examples: [{
      productId: 'sku-1001',
      rating: 5,
      title: 'Fits perfectly',
      body: 'Soft linen, true to size.',
      authorName: 'Ann',
      authorEmail: 'ann@example.com',
      orderId: '#1042'
    }]
  }),
  response: { 201: Type.Object({ id: Str(), status: Status }), ...storefrontErrors }
}

export const markHelpful = {
  tags: ['reviews'],
  summary: 'Vote a published review helpful; one vote per visitor per review; 5/s and 20/min per IP',
  description: storefrontDoc + ' A repeated vote from the same visitor answers 200 with the unchanged count.',
  security: [],
  params: IdParams,
  response: { 200: Type.Object({ helpfulCount: Type.Integer() }), ...storefrontErrors }
}
