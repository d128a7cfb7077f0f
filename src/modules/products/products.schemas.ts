import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, NullableDateTime, PageQuery, SyncPaged, SyncQuery } from '../../schemas.js'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** docs/contract/api-conventions.md#bulk-upserts. Every field is written on each upsert: an omitted one is cleared. */
export const ProductItem = Type.Object({
  platformProductId: Type.String({ minLength: 1, maxLength: 191, description: 'The upsert key' }),
  title: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
  imageUrl: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
  excludedFromReviewRequests: Type.Optional(Type.Boolean({ description: 'Omitted: false' })),
  exclusionReason: Type.Optional(
    Nullable(Type.String({ maxLength: 500, description: 'Recorded on each review request skipped because of this product' }))
  ),
  categoryIds: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 50,
      uniqueItems: true,
      description: 'Categories of this store (GET /categories); omitted: none'
    })
  ),
  platformUpdatedAt: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description: 'The platform\'s own last change: an item older than the stored product\'s is left alone (out-of-order delivery)'
      })
    )
  )
}, { additionalProperties: false })

export const Product = Type.Object({
  platformProductId: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  excludedFromReviewRequests: Type.Boolean(),
  exclusionReason: Type.Union([Type.String(), Type.Null()]),
  categoryIds: Type.Array(Type.String()),
  platformUpdatedAt: NullableDateTime,
  createdAt: DateTime,
  updatedAt: DateTime
})

export const BulkResult = Type.Object({
  received: Type.Integer(),
  upserted: Type.Integer({ description: 'Items stored as sent (including those already identical)' }),
  failed: Type.Integer({ description: 'Check this: the status is 200 even when items failed' }),
  errors: Type.Array(Type.Object({
    index: Type.Integer({ description: 'Position of the item in the request array' }),
    platformId: Type.Union([Type.String(), Type.Null()]),
    code: Type.String({ description: '`invalid_item` or `duplicate_item`' }),
    message: Type.String()
  }))
})

export const upsertProducts = {
  tags: ['products'],
  summary: 'Upsert up to 250 products keyed on platformProductId; each item replaces the stored product',
  description:
    'Items are independent: a bad item (also one naming a category the store does not have) is reported in `errors` with its index and the rest are stored, ' +
    'with status 200, so check `failed`. More than 250 items is refused whole with `batch_too_large`. Re-sending an ' +
    'identical payload changes nothing and appends no event; each changed product appends `product.upserted`.',
  body: Type.Object({ products: Type.Array(ProductItem, { maxItems: 250 }) }, {
    examples: [{
      products: [{
        platformProductId: 'sku-1001',
        title: 'Linen shirt',
        url: 'https://shop.example/p/linen-shirt',
        imageUrl: 'https://cdn.shop.example/linen.jpg'
      }, {
        platformProductId: 'gift-card',
        title: 'Gift card',
        excludedFromReviewRequests: true,
        exclusionReason: 'Gift cards are not reviewed'
      }]
    }]
  }),
  response: { 200: BulkResult, ...authErrors }
}

export const listProducts = {
  tags: ['products'],
  summary: 'List products, most recently updated first; with updatedSince or cursor, changes oldest first (incremental sync)',
  querystring: Type.Object({
    ...PageQuery,
    ...SyncQuery,
    excludedFromReviewRequests: Type.Optional(Type.Boolean())
  }),
  response: { 200: SyncPaged(Product), ...authErrors }
}

export const getProduct = {
  tags: ['products'],
  summary: 'One product by its platform id',
  params: Type.Object({ platformProductId: Type.String({ minLength: 1, maxLength: 191 }) }),
  response: { 200: Product, ...authErrors }
}
