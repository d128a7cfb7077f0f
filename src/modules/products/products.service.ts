import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { applyBulk, itemChecker, type ItemError } from '../../lib/bulk.js'
import { lockStoreContent } from '../../lib/content.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { isSyncQuery, syncEnvelope, type SyncQuery } from '../../lib/sync.js'
import { toMs } from '../../lib/formats.js'
import type { EventLog } from '../events/index.js'
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
    categoryIds: row.category_ids ? JSON.parse(row.category_ids) as string[] : [],
    platformUpdatedAt: iso(row.platform_updated_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

const checkProducts = itemChecker(ProductItem, 'platformProductId')

/** Stored sorted, so the same set in another order is no change (and appends no event). */
function categoryColumn (ids: string[] | undefined): string | null {
  return ids && ids.length ? JSON.stringify([...ids].sort()) : null
}

/**
 * Items naming a category the store does not have become `invalid_item` errors, like any other bad item. Checked in
 * the batch's transaction after the store's content lock, which a category's delete also takes first
 * (lib/content.ts): a batch and a delete at the same moment take turns, so a product never keeps a deleted category.
 * A batch naming no category takes no such lock.
 */
async function refuseUnknownCategories (
  repo: ProductsRepository,
  store: StoreEnv,
  valid: ReturnType<typeof checkProducts>['valid'],
  trx: Knex.Transaction
): Promise<ItemError[]> {
  const named = [...new Set(valid.flatMap((v) => v.item.categoryIds ?? []))]
  if (named.length === 0) return []
  await lockStoreContent(trx, store)
  const known = await repo.knownCategories(store.id, named, trx)
  return valid.flatMap((v) => {
    const unknown = (v.item.categoryIds ?? []).find((id) => !known.has(id))
    return unknown
      ? [{
          index: v.index,
          platformId: v.item.platformProductId,
          code: 'invalid_item',
          message: `categoryIds: ${unknown} is not a category of this store`
        }]
      : []
  })
}

/** True when both sides carry the platform's `updated_at` and the incoming one is older than the stored one. */
export function isOlder (incoming: number | null, stored: number | string | null | undefined): boolean {
  return incoming !== null && stored != null && incoming < Number(stored)
}

export function productsService ({ db, repo, events, clock }: Deps) {
  return {
    async upsert (store: StoreEnv, items: unknown[]) {
      if (items.length > MAX_BATCH) throw new errors.BatchTooLarge(MAX_BATCH)
      const now = clock()
      return applyBulk(db, checkProducts(items), items.length, {
        storeId: store.id,
        admit: (valid, trx) => refuseUnknownCategories(repo, store, valid, trx),
        keyOf: (item) => item.platformProductId,
        load: (keys, trx) => repo.findByKeys(store.id, keys, trx, true),
        columns: PRODUCT_FIELDS,
        toRows: async (list, existing) => list.map((item): ProductRow => {
          const before = existing.get(item.platformProductId)
          const platformUpdatedAt = toMs(item.platformUpdatedAt)
          // Out-of-order delivery: an item older than the stored product is left alone, like an identical re-send.
          if (before && isOlder(platformUpdatedAt, before.platform_updated_at)) return before
          return {
            org_id: store.orgId,
            store_env_id: store.id,
            platform_product_id: item.platformProductId,
            title: item.title ?? null,
            url: item.url ?? null,
            image_url: item.imageUrl ?? null,
            excluded_from_review_requests: item.excludedFromReviewRequests ?? false,
            exclusion_reason: item.exclusionReason ?? null,
            category_ids: categoryColumn(item.categoryIds),
            platform_updated_at: platformUpdatedAt,
            created_at: before?.created_at ?? now,
            updated_at: now
          }
        }),
        write: async (changed, _existing, trx) => {
          await repo.upsert(changed, trx)
          await events.appendMany(
            trx,
            store.id,
            store.orgId,
            changed.map((row) => ({ type: 'product.upserted', data: presentProduct(row) }))
          )
        }
      })
    },

    /** Categories hook: a deleted category leaves the products listing it, each with its `product.upserted`. */
    async uncategorise (trx: Knex.Transaction, store: StoreEnv, categoryId: string) {
      const now = clock()
      const changed: ProductRow[] = []
      for (const row of await repo.inCategory(store.id, categoryId, trx)) {
        const ids = (JSON.parse(row.category_ids!) as string[]).filter((id) => id !== categoryId)
        const after = { ...row, category_ids: categoryColumn(ids), updated_at: now }
        await repo.setCategories(store.id, row.platform_product_id, after.category_ids, now, trx)
        changed.push(after)
      }
      if (changed.length) {
        await events.appendMany(trx, store.id, store.orgId, changed.map((row) => ({ type: 'product.upserted', data: presentProduct(row) })))
      }
    },

    async list (storeId: string, query: PageQuery & SyncQuery & { excludedFromReviewRequests?: boolean }) {
      const page = toPage(query)
      const filter = { excluded: query.excludedFromReviewRequests }
      if (isSyncQuery(query)) {
        const found = await repo.sync(storeId, filter, query, page.limit, (message) => new errors.InvalidRequest(message))
        return syncEnvelope(found.rows.map(presentProduct), found, page.limit)
      }
      const { total, rows } = await repo.list(storeId, filter, page)
      return envelope(rows.map(presentProduct), total, page)
    },

    /** A product deleted on the platform (platform sync); appends `product.deleted`. False when there was none. */
    async remove (store: StoreEnv, key: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const row = await repo.remove(store.id, key, trx)
        if (row) {
          await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'product.deleted', data: { platformProductId: key } })
        }
        return row !== undefined
      })
    },

    async get (storeId: string, key: string) {
      const row = await repo.find(storeId, key)
      if (!row) throw new errors.NotFound('Product')
      return presentProduct(row)
    }
  }
}
export type ProductsService = ReturnType<typeof productsService>
