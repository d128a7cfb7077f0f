import type { Knex } from 'knex'
import { lockForWrite } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'

export interface ProductRow {
  org_id: string
  store_env_id: string
  platform_product_id: string
  title: string | null
  url: string | null
  image_url: string | null
  excluded_from_review_requests: boolean | number
  exclusion_reason: string | null
  created_at: number
  updated_at: number
}

/** The columns an upsert replaces (everything the client owns, plus updated_at). */
export const PRODUCT_FIELDS = ['title', 'url', 'image_url', 'excluded_from_review_requests', 'exclusion_reason'] as const

export function productsRepository (db: Knex) {
  return {
    /** `lock`: a bulk upsert's read of the rows it is about to write (lib/bulk.ts). */
    async findByKeys (storeId: string, keys: string[], trx: Knex = db, lock = false): Promise<Map<string, ProductRow>> {
      const rows = keys.length ? await lockForWrite(trx<ProductRow>('products').where({ store_env_id: storeId }).whereIn('platform_product_id', keys), lock) : []
      return new Map(rows.map((row) => [row.platform_product_id, row]))
    },

    async upsert (rows: ProductRow[], trx: Knex) {
      if (rows.length === 0) return
      await trx('products').insert(rows).onConflict(['store_env_id', 'platform_product_id']).merge([...PRODUCT_FIELDS, 'updated_at'])
    },

    find (storeId: string, key: string): Promise<ProductRow | undefined> {
      return db<ProductRow>('products').where({ store_env_id: storeId, platform_product_id: key }).first()
    },

    async list (storeId: string, filter: { excluded?: boolean }, page: { offset: number, limit: number }) {
      const base = db<ProductRow>('products').where({ store_env_id: storeId })
      if (filter.excluded !== undefined) base.where({ excluded_from_review_requests: filter.excluded })
      return countAndPage<ProductRow>(base, page, (q) => q.orderBy('updated_at', 'desc').orderBy('id', 'desc'))
    }
  }
}
export type ProductsRepository = ReturnType<typeof productsRepository>
