import type { Knex } from 'knex'

export interface PublishedReview {
  id: string
  rating: number
  title: string | null
  body: string
  author_name: string
  verified: boolean | number
  media: string
  reply: string | null
  replied_at: number | null
  written_at: number
  updated_at: number
}

const PUBLIC_COLUMNS = [
  'id',
  'rating',
  'title',
  'body',
  'author_name',
  'verified',
  'media',
  'reply',
  'replied_at',
  'written_at',
  'updated_at'
]

/**
 * The published reviews of one product: what a shopper may see. Reads use the (store_env_id, product_id, written_at)
 * index of reviews, so their cost follows one product's reviews, never the store's. No email column is ever read.
 */
export function evidenceRepository (db: Knex) {
  const published = (storeId: string, productId: string) =>
    db('reviews').where({ store_env_id: storeId, product_id: productId, status: 'published' })

  return {
    async ratingCells (storeId: string, productId: string): Promise<Array<{ rating: number, verified: boolean, n: number }>> {
      const rows = await published(storeId, productId).groupBy('rating', 'verified').select('rating', 'verified').count({
        n: '*'
      }) as Array<{ rating: number, verified: number | boolean, n: number | string }>
      return rows.map((r) => ({ rating: Number(r.rating), verified: Boolean(Number(r.verified)), n: Number(r.n) }))
    },

    async recent (storeId: string, productId: string, limit: number): Promise<PublishedReview[]> {
      return published(storeId, productId).orderBy('written_at', 'desc').orderBy('id', 'desc').limit(limit).select(PUBLIC_COLUMNS)
    },

    /** The newest published reviews that carry media (their photos feed the gallery of the evidence). */
    async withMedia (storeId: string, productId: string, limit: number): Promise<PublishedReview[]> {
      return published(storeId, productId).whereNot('media', '[]').orderBy('written_at', 'desc').orderBy('id', 'desc').limit(limit).select(
        PUBLIC_COLUMNS
      )
    },

    async lastChange (storeId: string, productId: string): Promise<number | null> {
      const [{ at }] = await published(storeId, productId).max({ at: 'updated_at' })
      return at == null ? null : Number(at)
    }
  }
}
export type EvidenceRepository = ReturnType<typeof evidenceRepository>
