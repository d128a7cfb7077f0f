import { Type } from '@sinclair/typebox'
import { ErrorBody, IdParams, PageMeta, PageQuery } from '../../schemas.js'
import { ProductRef } from '../content/index.js'
import { PublicGallery, PublicGalleryQuery } from '../galleries/index.js'
import { Widget, Settings } from '../placements/index.js'

const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }
const doc = 'Storefront read for widgets: no credential. Send `x-store-env-id` and come from an origin the store allows ' +
  '(else 403 `origin_not_allowed`). 20/s and 600/min per visitor IP. Answers carry an `ETag` and ' +
  '`Cache-Control: public, max-age=60`; send the ETag back in `If-None-Match` to get 304 with no body when nothing changed.'
const headers = Type.Object({
  'if-none-match': Type.Optional(Type.String({ maxLength: 200, description: 'The ETag of an earlier answer' }))
})
const notModified = Type.Null({ description: 'Not Modified: the answer has not changed since the ETag sent' })

/** A published review as a shop shows it: the author's name, never any part of the address. */
export const PublicReview = Type.Object({
  id: Type.String(),
  productId: Type.String(),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  title: Type.Union([Type.String(), Type.Null()]),
  body: Type.String(),
  authorName: Type.String(),
  verified: Type.Boolean(),
  helpfulCount: Type.Integer(),
  media: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), url: Type.String() })),
  reply: Type.Union([Type.Object({ body: Type.String(), repliedAt: Type.String() }), Type.Null()]),
  writtenAt: Type.String()
})

/**
 * A filter on the storefront lists: only records changed at or after an instant
 * (docs/contract/storefront.md#widget-reads).
 */
export const UpdatedSince = Type.Optional(
  Type.String({ format: 'date-time', description: 'Only records changed at or after this instant' })
)

export const reviews = {
  tags: ['storefront'],
  summary: 'The published reviews of a product, newest first',
  description: doc,
  security: [],
  headers,
  querystring: Type.Object({ productId: ProductRef, ...PageQuery, updatedSince: UpdatedSince }),
  response: { 200: Type.Object({ data: Type.Array(PublicReview), meta: PageMeta }), 304: notModified, ...errors }
}

const Count = Type.Integer({ minimum: 0 })

export const summary = {
  tags: ['storefront'],
  summary: 'The rating summary of a product: count, average and distribution of its published reviews',
  description: doc,
  security: [],
  headers,
  querystring: Type.Object({ productId: ProductRef }),
  response: {
    200: Type.Object({
      productId: Type.String(),
      count: Count,
      average: Type.Union([Type.Number(), Type.Null()], { description: 'Rounded to two decimals; null without reviews' }),
      distribution: Type.Object({ 1: Count, 2: Count, 3: Count, 4: Count, 5: Count })
    }),
    304: notModified,
    ...errors
  }
}

export const gallery = {
  tags: ['storefront'],
  summary: 'A published gallery with a page of its approved photos, newest first',
  description: doc,
  security: [],
  headers,
  params: IdParams,
  querystring: PublicGalleryQuery,
  response: { 200: PublicGallery, 304: notModified, ...errors }
}

export const faqs = {
  tags: ['storefront'],
  summary: 'Published FAQs by position: a product\'s own and the store-wide ones, or only store-wide without productId',
  description: doc,
  security: [],
  headers,
  // 20 by default, as every list of the contract (docs/contract/api-conventions.md#pagination): the widget asks for 100
  // itself.
  querystring: Type.Object({ productId: Type.Optional(ProductRef), ...PageQuery, updatedSince: UpdatedSince }),
  response: {
    200: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.String(),
          question: Type.String(),
          answer: Type.String(),
          productId: Type.Union([Type.String(), Type.Null()]),
          position: Type.Integer()
        })
      ),
      meta: PageMeta
    }),
    304: notModified,
    ...errors
  }
}

export const placements = {
  tags: ['storefront'],
  summary: 'The enabled widget placements of the page at a URL, for the widget loader',
  description: doc + ' The URL is matched by origin and path (query and fragment ignored); an unknown page has no placements.',
  security: [],
  headers,
  querystring: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) }),
  response: {
    200: Type.Object({
      page: Type.Union([Type.Object({ id: Type.String(), url: Type.String(), type: Type.String() }), Type.Null()]),
      data: Type.Array(Type.Object({ id: Type.String(), widget: Widget, selector: Type.String(), settings: Settings }))
    }),
    304: notModified,
    ...errors
  }
}
