import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../schemas.js'
import { ReviewInput, Status } from '../reviews/index.js'
import { BulkResult } from '../products/index.js'

export const MAX_IMPORT_ITEMS = 1000

/**
 * The largest body `POST /imports` takes: 1,000 items with every text at its maxLength in 4-byte UTF-8 characters
 * come to about 45 MB, so no import the schema accepts is refused for its size (other routes take 5 MB).
 */
export const IMPORT_BODY_LIMIT = 48 * 1024 * 1024

/** One imported review: `writtenAt` is the original review date, and lists sort by it. */
export const ImportReviewItem = Type.Object({
  ...ReviewInput,
  authorEmail: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 320 }), Type.Null()])),
  writtenAt: Type.String({ format: 'date-time', description: 'When the review was originally written' }),
  status: Type.Optional(Type.Union(Status.anyOf, { description: 'Default: published' }))
}, { additionalProperties: false })

export const Import = Type.Object({
  id: Type.String(),
  type: Type.Literal('reviews'),
  status: Type.Union([Type.Literal('completed'), Type.Literal('partial'), Type.Literal('failed')], {
    description: '`completed`: every item imported; `partial`: some refused (see `errors`); `failed`: none imported'
  }),
  received: Type.Integer(),
  imported: Type.Integer(),
  failed: Type.Integer({ description: 'Check this: items are independent, as in the bulk upserts' }),
  errors: BulkResult.properties.errors,
  createdAt: DateTime,
  completedAt: NullableDateTime
})

export const createImport = {
  tags: ['imports'],
  summary: 'Import up to 1,000 reviews with their original writtenAt',
  description: 'Processed at once; each stored review appends `review.created`. A bad item is reported in `errors` with ' +
    'its index (`platformId` is its productId) and the rest are stored. More than 1,000 items: `batch_too_large`. ' +
    'The body may be up to 48 MB (413 `payload_too_large` above), enough for 1,000 items at every maxLength.',
  body: Type.Object({
    type: Type.Literal('reviews'),
    items: Type.Array(ImportReviewItem, { maxItems: MAX_IMPORT_ITEMS })
  }, {
    examples: [{
      type: 'reviews',
      items: [{
        productId: 'sku-1001',
        rating: 4,
        body: 'Good shirt, runs a little large.',
        authorName: 'Ben',
        authorEmail: 'ben@example.com',
        writtenAt: '2025-06-01T10:00:00Z'
      }]
    }]
  }),
  response: { 201: Import, ...authErrors }
}

export const getImport = {
  tags: ['imports'],
  summary: 'One import and its per-item errors',
  params: IdParams,
  response: { 200: Import, ...authErrors }
}

const { errors: _errors, ...summaryFields } = Import.properties

export const listImports = {
  tags: ['imports'],
  summary: 'List imports, newest first (each without its per-item errors: GET /imports/{id} has them)',
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Imports made at or after this instant (an import does not change once completed)' })
    )
  }),
  response: { 200: Paged(Type.Object(summaryFields)), ...authErrors }
}
