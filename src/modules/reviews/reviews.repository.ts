import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'
import { moveReviews, recordEngagement, trackOrders, type ReviewFact } from '../analytics/index.js'
import { syncPage, type SyncQuery } from '../../lib/sync.js'
import { isDuplicateKey } from '../../db.js'

export type ReviewStatus = 'pending' | 'published' | 'rejected'
export type ReviewSource = 'storefront' | 'import' | 'api'

export interface ReviewRow {
  id: string
  org_id: string
  store_env_id: string
  product_id: string
  order_id: string | null
  rating: number
  title: string | null
  body: string
  author_name: string
  author_email: string | null
  verified: boolean | number
  status: ReviewStatus
  helpful_count: number
  media: string
  source: ReviewSource
  reply: string | null
  replied_at: number | null
  import_id: string | null
  written_at: number
  created_at: number
  updated_at: number
}

export interface ReviewFilter { orderId?: string, productId?: string, verified?: boolean, status?: ReviewStatus, rating?: number }

type Cell = Pick<ReviewRow, 'status' | 'rating' | 'verified'>
const cellOf = (row: Cell) => `${row.status}|${Number(row.rating)}|${Number(row.verified) ? 1 : 0}`

/**
 * review_tallies (migrations/20261125010000_review_tallies.ts): moves each (status, rating, verified) cell by its
 * delta in the writer's transaction, so totals are exact at every commit. Cells in a fixed order, so concurrent
 * writers lock them in the same order.
 */
async function tally (trx: Knex, storeId: string, deltas: Map<string, number>) {
  for (const cell of [...deltas.keys()].sort()) {
    const delta = deltas.get(cell)!
    if (delta === 0) continue
    const [status, rating, verified] = cell.split('|')
    await trx('review_tallies')
      .insert({ store_env_id: storeId, status, rating: Number(rating), verified: verified === '1', n: delta })
      .onConflict(['store_env_id', 'status', 'rating', 'verified'])
      .merge({ n: trx.raw('?? + ?', ['review_tallies.n', delta]) })
  }
}

function add (deltas: Map<string, number>, cell: string, by: number) {
  deltas.set(cell, (deltas.get(cell) ?? 0) + by)
}

/**
 * product_review_tallies (migrations/20261126010000_content.ts): published reviews per product and rating, for the
 * storefront summary and review count. Keys are `<rating>|<product id>` (the rating is one digit).
 */
type Counted = Pick<ReviewRow, 'status' | 'rating' | 'product_id'>
function addPublished (deltas: Map<string, number>, row: Counted | null, by: number) {
  if (row?.status === 'published') add(deltas, `${Number(row.rating)}|${row.product_id}`, by)
}

async function tallyProducts (trx: Knex, storeId: string, deltas: Map<string, number>) {
  for (const key of [...deltas.keys()].sort()) {
    const delta = deltas.get(key)!
    if (delta === 0) continue
    await trx('product_review_tallies')
      .insert({ store_env_id: storeId, product_id: key.slice(2), rating: Number(key[0]), n: delta })
      .onConflict(['store_env_id', 'product_id', 'rating'])
      .merge({ n: trx.raw('?? + ?', ['product_review_tallies.n', delta]) })
  }
}

/** The filters the tallies answer alone; a product or order filter counts its own (small, indexed) rows. */
function talliesAnswer (filter: ReviewFilter): boolean {
  return filter.orderId === undefined && filter.productId === undefined
}

export interface ReviewsRepositoryOptions {
  /** Called with the writer's transaction whenever what shoppers see of a store's reviews may have changed. */
  changed?: (storeId: string, trx: Knex) => void
}

export function reviewsRepository (db: Knex, { changed = () => {} }: ReviewsRepositoryOptions = {}) {
  const factOf = (storeId: string, id: string, trx: Knex): Promise<(ReviewFact & Cell & { order_id: string | null }) | undefined> =>
    trx('reviews').where({ store_env_id: storeId, id }).first(
      'store_env_id',
      'product_id',
      'written_at',
      'status',
      'rating',
      'verified',
      'order_id'
    )
  function filtered (storeId: string, filter: ReviewFilter) {
    const base = db<ReviewRow>('reviews').where({ store_env_id: storeId })
    if (filter.orderId !== undefined) base.where({ order_id: filter.orderId })
    if (filter.productId !== undefined) base.where({ product_id: filter.productId })
    if (filter.verified !== undefined) base.where({ verified: filter.verified })
    if (filter.status !== undefined) base.where({ status: filter.status })
    if (filter.rating !== undefined) base.where({ rating: filter.rating })
    return base
  }

  return {
    async insert (rows: ReviewRow[], trx: Knex) {
      const byStore = new Map<string, { cells: Map<string, number>, products: Map<string, number> }>()
      for (const row of rows) {
        if (!byStore.has(row.store_env_id)) byStore.set(row.store_env_id, { cells: new Map(), products: new Map() })
        const deltas = byStore.get(row.store_env_id)!
        add(deltas.cells, cellOf(row), 1)
        addPublished(deltas.products, row, 1)
      }
      for (const [storeId, deltas] of byStore) {
        const own = rows.filter((row) => row.store_env_id === storeId)
        // Chunked: SQLite caps bound variables per statement.
        await trackOrders(trx, storeId, own.map((row) => row.order_id), async () => {
          for (let i = 0; i < own.length; i += 40) await trx('reviews').insert(own.slice(i, i + 40))
        })
        await tally(trx, storeId, deltas.cells)
        await tallyProducts(trx, storeId, deltas.products)
        await moveReviews(trx, [], own)
        changed(storeId, trx)
      }
    },

    /** With `lock`, a locking read (lib/bulk.ts `lockForWrite`). */
    find (storeId: string, id: string, trx: Knex = db, lock = false): Promise<ReviewRow | undefined> {
      return lockForWrite(trx<ReviewRow>('reviews').where({ store_env_id: storeId, id }), lock).first()
    },

    /** docs/contract/catalog.md#reviews: newest `writtenAt` first (an import's original date), id breaking ties. */
    sync (storeId: string, filter: ReviewFilter, query: SyncQuery, limit: number, invalid: (message: string) => Error) {
      return syncPage<ReviewRow>(filtered(storeId, filter), query, limit, { numericId: false, invalid })
    },

    async list (storeId: string, filter: ReviewFilter, page: { offset: number, limit: number }) {
      const base = filtered(storeId, filter)
      const order = (q: Knex.QueryBuilder) => q.orderBy('written_at', 'desc').orderBy('id', 'desc')
      if (!talliesAnswer(filter)) return countAndPage<ReviewRow>(base, page, order)
      const tallies = db('review_tallies').where({ store_env_id: storeId })
      if (filter.verified !== undefined) tallies.where({ verified: filter.verified })
      if (filter.status !== undefined) tallies.where({ status: filter.status })
      if (filter.rating !== undefined) tallies.where({ rating: filter.rating })
      const [[{ total }], rows] = await Promise.all([
        tallies.sum<Array<{ total: number | string | null }>>({ total: 'n' }),
        order(base).offset(page.offset).limit(page.limit)
      ])
      return { total: Number(total ?? 0), rows: rows as ReviewRow[] }
    },

    async update (storeId: string, id: string, patch: Partial<ReviewRow>, trx: Knex) {
      const moves = patch.status !== undefined || patch.rating !== undefined || patch.verified !== undefined ||
        patch.written_at !== undefined || patch.product_id !== undefined
      const before = moves ? await factOf(storeId, id, trx) : undefined
      await trx('reviews').where({ store_env_id: storeId, id }).update(patch)
      changed(storeId, trx)
      if (!before) return
      const after = await factOf(storeId, id, trx)
      if (!after) return
      await moveReviews(trx, [before], [after])
      if (cellOf(after) !== cellOf(before)) await tally(trx, storeId, new Map([[cellOf(before), -1], [cellOf(after), 1]]))
      const products = new Map<string, number>()
      addPublished(products, before, -1)
      addPublished(products, after, 1)
      await tallyProducts(trx, storeId, products)
    },

    async remove (storeId: string, id: string, trx: Knex): Promise<boolean> {
      const before = await factOf(storeId, id, trx)
      if (!before) return false
      await trackOrders(trx, storeId, [before.order_id], () => trx('reviews').where({ store_env_id: storeId, id }).delete())
      changed(storeId, trx)
      await tally(trx, storeId, new Map([[cellOf(before), -1]]))
      await moveReviews(trx, [before], [])
      const products = new Map<string, number>()
      addPublished(products, before, -1)
      await tallyProducts(trx, storeId, products)
      return true
    },

    /** True only for a visitor's first vote on the review; the count moves in the same transaction. */
    async vote (storeId: string, reviewId: string, voterHash: string, now: number, trx: Knex): Promise<boolean> {
      const key = { review_id: reviewId, voter_hash: voterHash }
      if (await trx('review_votes').where(key).first('review_id')) return false
      try {
        await trx('review_votes').insert({ ...key, store_env_id: storeId, created_at: now })
      } catch (err) {
        // A concurrent first vote from the same visitor won the primary key.
        if (isDuplicateKey(err)) return false
        throw err
      }
      await trx('reviews').where({ store_env_id: storeId, id: reviewId }).increment('helpful_count', 1)
      changed(storeId, trx)
      await recordEngagement(trx, { storeEnvId: storeId, kind: 'helpful', at: now })
      return true
    },

    /** Whether any review names the order (an email sequence step with `stopWhen: reviewed` is then not sent). */
    async hasOrderReview (storeId: string, orderId: string, trx: Knex = db): Promise<boolean> {
      return (await trx('reviews').where({ store_env_id: storeId, order_id: orderId }).first('id')) !== undefined
    },

    /** The storefront page of a product's published reviews, newest first (index store_env_id, product_id, written_at). */
    publishedPage (storeId: string, productId: string, page: { offset: number, limit: number }): Promise<ReviewRow[]> {
      return db<ReviewRow>('reviews').where({ store_env_id: storeId, product_id: productId, status: 'published' })
        .orderBy('written_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit) as unknown as Promise<ReviewRow[]>
    },

    /** A page of a product's published reviews changed at or after `updatedSince`, newest `writtenAt` first, and their count. */
    publishedSince (storeId: string, productId: string, updatedSince: number, page: { offset: number, limit: number }) {
      const base = db<ReviewRow>('reviews').where({ store_env_id: storeId, product_id: productId, status: 'published' }).where(
        'updated_at',
        '>=',
        updatedSince
      )
      return countAndPage<ReviewRow>(base, page, (q) => q.orderBy('written_at', 'desc').orderBy('id', 'desc'))
    },

    /** Published reviews of a product per rating, from product_review_tallies (at most five rows). */
    async publishedTallies (storeId: string, productId: string): Promise<Map<number, number>> {
      const rows = await db('product_review_tallies').where({ store_env_id: storeId, product_id: productId }).select('rating', 'n')
      return new Map(rows.map((r: { rating: number, n: number | string }) => [Number(r.rating), Number(r.n)]))
    },

    byOrders (storeId: string, orderIds: string[], trx: Knex): Promise<ReviewRow[]> {
      return orderIds.length
        ? rowsByKeys<ReviewRow>(trx, 'reviews', storeId, 'order_id', orderIds, 'written_at_index')
        : Promise.resolve([])
    },

    async orderEmails (storeId: string, orderIds: string[], trx: Knex = db): Promise<Map<string, string | null>> {
      const ids = [...new Set(orderIds)]
      const rows = ids.length
        ? await rowsByKeys(trx, 'orders', storeId, 'platform_order_id', ids).select('platform_order_id', 'customer_email')
        : []
      return new Map(rows.map((r: { platform_order_id: string, customer_email: string | null }) => [r.platform_order_id, r.customer_email]))
    }
  }
}
export type ReviewsRepository = ReturnType<typeof reviewsRepository>
