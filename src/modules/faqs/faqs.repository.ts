import type { Knex } from 'knex'
import { contentTable, type ContentRow, type SinceQuery } from '../../lib/content.js'
import { countAndPage } from '../../lib/pagination.js'

export interface FaqRow extends ContentRow {
  question: string
  answer: string
  product_id: string | null
  category_id: string | null
  status: 'draft' | 'published'
  position: number
}

export interface FaqFilter extends SinceQuery { productId?: string, status?: FaqRow['status'] }

export function faqsRepository (db: Knex) {
  const table = contentTable<FaqRow>(db, 'faqs')
  return {
    ...table,

    /** The storefront's FAQs: published, the product's own and the store-wide ones (no product), by position. */
    published (
      storeId: string,
      productId: string | undefined,
      page: { offset: number, limit: number },
      updatedSince: number | null = null
    ) {
      const query = table.base(storeId).where({ status: 'published' })
      if (updatedSince !== null) query.where('updated_at', '>=', updatedSince)
      if (productId !== undefined) query.where((q) => q.where({ product_id: productId }).orWhereNull('product_id'))
      else query.whereNull('product_id')
      return countAndPage<FaqRow>(query, page, (q) => q.orderBy('position', 'asc').orderBy('id', 'asc'))
    },

    inCategory (storeId: string, categoryId: string, trx: Knex): Promise<FaqRow[]> {
      return trx<FaqRow>('faqs').where({ store_env_id: storeId, category_id: categoryId }) as unknown as Promise<FaqRow[]>
    }
  }
}
export type FaqsRepository = ReturnType<typeof faqsRepository>
