import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { applyBulk, itemChecker } from '../../lib/bulk.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/events.repository.js'
import type { StoreEnv } from '../../types.js'
import { PRODUCT_FIELDS, type ProductRow, type ProductsRepository } from './products.repository.js'
import { ProductItem } from './products.schemas.js'

export const MAX_BATCH = 250

interface Deps { db: Knex, repo: ProductsRepository, events: EventLog, clock: Clock }

export function presentProduct (row: ProductRow) {
  return {
    platformProductId: row.platform_product_id,
    title: row.title,
    url: row.url,
    imageUrl: row.image_url,
    excludedFromReviewRequests: Boolean(row.excluded_from_review_requests),
    exclusionReason: row.exclusion_reason,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

const checkProducts = itemChecker(ProductItem, 'platformProductId')

export function productsService ({ db, repo, events, clock }: Deps) {
  return {
    async upsert (store: StoreEnv, items: unknown[]) {
      if (items.length > MAX_BATCH) throw new errors.BatchTooLarge(MAX_BATCH)
      const now = clock()
      return applyBulk(db, checkProducts(items), items.length, {
        storeId: store.id,
        keyOf: (item) => item.platformProductId,
        load: (keys, trx) => repo.findByKeys(store.id, keys, trx, true),
        columns: PRODUCT_FIELDS,
        toRows: async (list, existing) => list.map((item): ProductRow => ({
          org_id: store.orgId,
          store_env_id: store.id,
          platform_product_id: item.platformProductId,
          title: item.title ?? null,
          url: item.url ?? null,
          image_url: item.imageUrl ?? null,
          excluded_from_review_requests: item.excludedFromReviewRequests ?? false,
          exclusion_reason: item.exclusionReason ?? null,
          created_at: existing.get(item.platformProductId)?.created_at ?? now,
          updated_at: now
        })),
        write: async (changed, _existing, trx) => {
          await repo.upsert(changed, trx)
          await events.appendMany(trx, store.id, store.orgId, changed.map((row) => ({ type: 'product.upserted', data: presentProduct(row) })))
        }
      })
    },

    async list (storeId: string, query: PageQuery & { excludedFromReviewRequests?: boolean }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, { excluded: query.excludedFromReviewRequests }, page)
      return envelope(rows.map(presentProduct), total, page)
    },

    async get (storeId: string, key: string) {
      const row = await repo.find(storeId, key)
      if (!row) throw new errors.NotFound('Product')
      return presentProduct(row)
    }
  }
}
export type ProductsService = ReturnType<typeof productsService>
