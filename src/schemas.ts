import { Type, type TSchema } from '@sinclair/typebox'
import { MAX_PAGE } from './lib/pagination.js'

/** Shapes shared by every module's schemas. */
export const ErrorBody = Type.Object({
  message: Type.String(),
  code: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() })))
}, { description: 'Every error: clients branch on `code`, never on `message`.' })

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `1-based page number, at most ${MAX_PAGE}` })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, default: 20, description: 'Page size; values above 100 are clamped to 100 (see meta.limit)' })
  )
}

export const PageMeta = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  totalPages: Type.Integer()
})

export function Paged<T extends TSchema> (item: T) {
  return Type.Object({ data: Type.Array(item), meta: PageMeta })
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })

/** The longest platform id (products, orders): the column is VARCHAR(191), counted in characters. */
export const PLATFORM_ID_MAX = 191
/**
 * fastify's router limit on one path parameter, counted in UTF-16 units after decoding: the longest platform id in
 * 4-byte characters must still reach its route (a longer one gets the route's own 400, not the router's 414).
 */
export const MAX_PARAM_LENGTH = PLATFORM_ID_MAX * 2 + 18

export const DateTime = Type.String({ format: 'date-time' })
export const NullableDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()])

/** The error responses a credential-authenticated route can give, for the OpenAPI document. */
export const authErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody
}

export const STORE_HEADER = Type.Object({
  'x-store-env-id': Type.Optional(Type.String({ description: 'The store environment this request acts on (required)' }))
})

/**
 * Incremental sync on a list (docs/contract/api-conventions.md#incremental-sync; docs/sync.md): `updatedSince` starts,
 * `cursor` continues. With either, the list is ordered oldest change first by (updatedAt, id) and `page` is ignored.
 */
export const SyncQuery = {
  updatedSince: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only records changed at or after this instant, oldest change first (then `page` is ignored: continue with `cursor`)'
    })
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 120,
      pattern: '^[A-Za-z0-9_-]+$',
      description: '`meta.nextCursor` of the previous page: the records changed after it, even those changed while paging'
    })
  )
}

/** A list that also serves incremental sync: `meta.nextCursor` and `meta.hasMore` come with `updatedSince`/`cursor`. */
export function SyncPaged<T extends TSchema> (item: T) {
  return Type.Object({
    data: Type.Array(item),
    meta: Type.Object({
      ...PageMeta.properties,
      nextCursor: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description: 'Sync lists only: the position after the last record returned; keep it to resume'
        })
      ),
      hasMore: Type.Optional(Type.Boolean({ description: 'Sync lists only: more changes follow now' }))
    })
  })
}
