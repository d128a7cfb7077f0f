/** What the JSON-LD is made from: the part of a product's evidence (evidence.service.ts) it shows. */
export interface EvidenceFacts {
  product: { platformProductId: string, title: string | null, url: string | null, imageUrl: string | null }
  rating: { count: number, average: number | null }
  recentReviews: Array<{ authorName: string, writtenAt: string, rating: number, title: string | null, body: string }>
}

/**
 * schema.org `Product` with `AggregateRating` and `Review` items, as Google's review snippet and product rules ask:
 * Product.name; AggregateRating ratingValue, reviewCount, bestRating (and worstRating); each Review with an author
 * (a Person with a name), a reviewRating (a Rating with ratingValue) and datePublished. Never an email, nor part of one.
 * A product without published reviews gets no AggregateRating (an empty rating is refused by validators).
 */
export function productJsonLd (evidence: EvidenceFacts) {
  const { product, rating } = evidence
  return {
    '@context': 'https://schema.org' as const,
    '@type': 'Product' as const,
    name: product.title ?? product.platformProductId,
    sku: product.platformProductId,
    ...(product.url ? { url: product.url } : {}),
    ...(product.imageUrl ? { image: product.imageUrl } : {}),
    ...(rating.count > 0
      ? {
          aggregateRating: {
            '@type': 'AggregateRating' as const,
            ratingValue: rating.average!,
            reviewCount: rating.count,
            bestRating: 5,
            worstRating: 1
          }
        }
      : {}),
    review: evidence.recentReviews.map((review) => ({
      '@type': 'Review' as const,
      author: { '@type': 'Person' as const, name: review.authorName },
      datePublished: review.writtenAt.slice(0, 10),
      reviewRating: { '@type': 'Rating' as const, ratingValue: review.rating, bestRating: 5, worstRating: 1 },
      ...(review.title ? { name: review.title } : {}),
      reviewBody: review.body
    }))
  }
}
