import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'
import { syncPage, type SyncQuery } from '../../lib/sync.js'

export interface ProductRow {
  org_id: string
  store_env_id: string
  platform_product_id: string
  title: string | null
  url: string | null
  image_url: string | null
  excluded_from_review_requests: boolean | number
  exclusion_reason: string | null
  /** JSON array of category ids, sorted; null for none. */
  category_ids: string | null
  /** The platform's own `updated_at` (ms) when the item carried one: an older one never overwrites it. */
  platform_updated_at?: number | null
  created_at: number
  updated_at: number
}

/** The columns an upsert replaces (everything the client owns, plus updated_at). */
export const PRODUCT_FIELDS = [
  'title',
  'url',
  'image_url',
  'excluded_from_review_requests',
  'exclusion_reason',
  'category_ids',
  'platform_updated_at'
] as const

export function productsRepository (db: Knex) {
  function filtered (storeId: string, filter: { excluded?: boolean }) {
    const base = db<ProductRow>('products').where({ store_env_id: storeId })
    if (filter.excluded !== undefined) base.where({ excluded_from_review_requests: filter.excluded })
    return base
  }

  return {
    /** `lock`: a bulk upsert's read of the rows it is about to write (lib/bulk.ts). */
    async findByKeys (storeId: string, keys: string[], trx: Knex = db, lock = false): Promise<Map<string, ProductRow>> {
      const rows = keys.length
        ? await lockForWrite(rowsByKeys<ProductRow>(trx, 'products', storeId, 'platform_product_id', keys), lock)
        : []
      return new Map(rows.map((row) => [row.platform_product_id, row]))
    },

    async upsert (rows: ProductRow[], trx: Knex) {
      if (rows.length === 0) return
      await trx('products').insert(rows).onConflict(['store_env_id', 'platform_product_id']).merge([...PRODUCT_FIELDS, 'updated_at'])
    },

    find (storeId: string, key: string): Promise<ProductRow | undefined> {
      return db<ProductRow>('products').where({ store_env_id: storeId, platform_product_id: key }).first()
    },

    /** Which of these ids are categories of the store. */
    async knownCategories (storeId: string, ids: string[], trx: Knex = db): Promise<Set<string>> {
      const rows = ids.length ? await trx('categories').where({ store_env_id: storeId }).whereIn('id', ids).select('id') : []
      return new Set(rows.map((row: { id: string }) => row.id))
    },

    /**
     * The products listing a category, locked (ids are base62, so the quoted id matches only itself). Found first
     * without locks, then locked by primary key: no index serves the LIKE, and a locking read locks every row it
     * passes, which would hold up every writer of the store's products until the category's deletion commits.
     */
    async inCategory (storeId: string, categoryId: string, trx: Knex): Promise<ProductRow[]> {
      const listing = `%"${categoryId}"%`
      const ids: number[] = await trx('products').where({ store_env_id: storeId }).where('category_ids', 'like', listing).pluck('id')
      if (ids.length === 0) return []
      return await lockForWrite(
        trx<ProductRow>('products').whereIn('id', ids).where('category_ids', 'like', listing).orderBy('id'),
        true
      ) as ProductRow[]
    },

    async setCategories (storeId: string, key: string, categoryIds: string | null, now: number, trx: Knex) {
      await trx('products').where({ store_env_id: storeId, platform_product_id: key }).update({
        category_ids: categoryIds,
        updated_at: now
      })
    },

    async list (storeId: string, filter: { excluded?: boolean }, page: { offset: number, limit: number }) {
      return countAndPage<ProductRow>(filtered(storeId, filter), page, (q) => q.orderBy('updated_at', 'desc').orderBy('id', 'desc'))
    },

    sync (storeId: string, filter: { excluded?: boolean }, query: SyncQuery, limit: number, invalid: (message: string) => Error) {
      return syncPage<ProductRow>(filtered(storeId, filter), query, limit, { numericId: true, invalid })
    },

    /** Removes the product and answers the row it was; undefined when the store had no such product. */
    async remove (storeId: string, key: string, trx: Knex): Promise<ProductRow | undefined> {
      const row = await lockForWrite(trx<ProductRow>('products').where({ store_env_id: storeId, platform_product_id: key }), true).first()
      if (row) await trx('products').where({ store_env_id: storeId, platform_product_id: key }).delete()
      return row
    }
  }
}
export type ProductsRepository = ReturnType<typeof productsRepository>
