import { parseDateTime } from '../../lib/formats.js'
import { iso } from '../../lib/clock.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { ReviewRow, ReviewsRepository } from '../reviews/index.js'

/**
 * A published review for shoppers: the author's name only, no part of the address
 * (docs/contract/storefront.md#widget-reads).
 */
export function presentPublicReview (row: ReviewRow) {
  const media = JSON.parse(row.media) as Array<{ id: string, type: string, url: string }>
  return {
    id: row.id,
    productId: row.product_id,
    rating: Number(row.rating),
    title: row.title,
    body: row.body,
    authorName: row.author_name,
    verified: Boolean(row.verified),
    helpfulCount: Number(row.helpful_count),
    media: media.map((m) => ({ id: m.id, type: m.type, url: m.url })),
    reply: row.reply == null ? null : { body: row.reply, repliedAt: iso(row.replied_at)! },
    writtenAt: iso(row.written_at)!
  }
}

/** The review reads of the storefront; galleries, FAQs and placements answer from their own services. */
export function storefrontService ({ reviews }: { reviews: ReviewsRepository }) {
  return {
    /** The total comes from the product's tallies, so a product with many reviews never counts its rows. */
    async reviews (storeId: string, query: PageQuery & { productId: string, updatedSince?: string }) {
      const page = toPage(query)
      const since = query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      if (since !== null) {
        const { total, rows } = await reviews.publishedSince(storeId, query.productId, since, page)
        return envelope(rows.map(presentPublicReview), total, page)
      }
      const [tallies, rows] = await Promise.all([
        reviews.publishedTallies(storeId, query.productId),
        reviews.publishedPage(storeId, query.productId, page)
      ])
      const total = [...tallies.values()].reduce((sum, n) => sum + n, 0)
      return envelope(rows.map(presentPublicReview), total, page)
    },

    async summary (storeId: string, productId: string) {
      const tallies = await reviews.publishedTallies(storeId, productId)
      const distribution = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 }
      let count = 0
      let points = 0
      for (const rating of [1, 2, 3, 4, 5] as const) {
        const n = tallies.get(rating) ?? 0
        distribution[rating] = n
        count += n
        points += n * rating
      }
      return { productId, count, average: count ? Math.round((points / count) * 100) / 100 : null, distribution }
    }
  }
}
export type StorefrontService = ReturnType<typeof storefrontService>
