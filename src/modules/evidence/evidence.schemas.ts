import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, PLATFORM_ID_MAX } from '../../schemas.js'

const Str = Type.String
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const ProductId = Str({ minLength: 1, maxLength: PLATFORM_ID_MAX, description: 'The product\'s platformProductId' })
const Params = Type.Object({ platformProductId: ProductId })

const Rating = Type.Object({
  average: Nullable(Type.Number({ minimum: 1, maximum: 5, description: 'Rounded to 2 decimals; null without published reviews' })),
  count: Type.Integer(),
  distribution: Type.Object({ 1: Type.Integer(), 2: Type.Integer(), 3: Type.Integer(), 4: Type.Integer(), 5: Type.Integer() })
})

/** What a shopper may see of a review: the author's name, never any part of an email. */
const PublicReview = Type.Object({
  id: Str(),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  title: Nullable(Str()),
  body: Str(),
  authorName: Str(),
  verified: Type.Boolean(),
  reply: Nullable(Type.Object({ body: Str(), repliedAt: DateTime })),
  writtenAt: DateTime
})

const Photo = Type.Object({
  id: Str(),
  url: Str(),
  caption: Nullable(Str()),
  source: Type.Union([Type.Literal('review'), Type.Literal('gallery')]),
  reviewId: Nullable(Str())
})

const EvidenceFields = {
  product: Type.Object({ platformProductId: Str(), title: Nullable(Str()), url: Nullable(Str()), imageUrl: Nullable(Str()) }),
  rating: Rating,
  verifiedShare: Nullable(
    Type.Number({ minimum: 0, maximum: 1, description: 'Share of published reviews that are verified (4 decimals)' })
  ),
  recentReviews: Type.Array(PublicReview, { description: 'The 10 newest published reviews' }),
  updatedAt: Type.String({ format: 'date-time', description: 'The last change to the product or its published reviews' })
}

export const getEvidence = {
  tags: ['evidence'],
  summary: 'The customer evidence of a product: rating summary, verified share, recent reviews and photos',
  description: 'Published reviews only. 404 `not_found` for a product the store has not synced.',
  params: Params,
  response: {
    200: Type.Object({ ...EvidenceFields, galleryPhotos: Type.Array(Photo, { description: 'Up to 12 photos, newest first' }) }),
    ...authErrors
  }
}

const Thing = (type: string, properties: Parameters<typeof Type.Object>[0]) => Type.Object({ '@type': Type.Literal(type), ...properties })
const RatingLd = Thing('Rating', { ratingValue: Type.Integer(), bestRating: Type.Integer(), worstRating: Type.Integer() })

export const getEvidenceJsonLd = {
  tags: ['evidence'],
  summary: 'The product as schema.org JSON-LD: Product with AggregateRating and Review items',
  description: 'Ready for a `<script type="application/ld+json">` tag: Product.name; AggregateRating with ratingValue, ' +
    'reviewCount, bestRating and worstRating (left out while the product has no published review); each Review with ' +
    'author (a Person\'s name), reviewRating and datePublished. No reviewer email appears.',
  params: Params,
  response: {
    200: Type.Object({
      '@context': Type.Literal('https://schema.org'),
      '@type': Type.Literal('Product'),
      name: Str(),
      sku: Str(),
      url: Type.Optional(Str()),
      image: Type.Optional(Str()),
      aggregateRating: Type.Optional(
        Thing('AggregateRating', {
          ratingValue: Type.Number(),
          reviewCount: Type.Integer(),
          bestRating: Type.Integer(),
          worstRating: Type.Integer()
        })
      ),
      review: Type.Array(Thing('Review', {
        author: Thing('Person', { name: Str() }),
        datePublished: Type.String({ format: 'date' }),
        reviewRating: RatingLd,
        name: Type.Optional(Str()),
        reviewBody: Str()
      }))
    }),
    ...authErrors
  }
}

export const createSnapshot = {
  tags: ['evidence'],
  summary: 'Sign the product\'s evidence now: a compact JWS anyone can verify offline with the keys at /oauth/jwks',
  description: 'The JWS is a JWT with header `typ: evidence-snapshot+jwt` and the `kid` of a key published at ' +
    '`jwksUri`, signed RS256; its claims are `iss`, `sub` (`<storeEnvId>/products/<platformProductId>`), `iat`, ' +
    '`jti`, `storeEnvId` and `evidence` (the evidence without photos). Verify with any JOSE library, e.g. jose\'s ' +
    '`jwtVerify(jws, createRemoteJWKSet(new URL(jwksUri)), { issuer, typ: "evidence-snapshot+jwt" })`.',
  body: Type.Object({ platformProductId: ProductId }, { additionalProperties: false, examples: [{ platformProductId: 'sku-1001' }] }),
  response: {
    201: Type.Object({
      id: Str({ description: 'The JWS\'s `jti`' }),
      jws: Str({ description: 'Compact serialization' }),
      kid: Str(),
      alg: Str(),
      issuer: Str(),
      jwksUri: Str(),
      issuedAt: DateTime,
      evidence: Type.Object(EvidenceFields, { description: 'The signed evidence, as in the JWS' })
    }),
    ...authErrors
  }
}
