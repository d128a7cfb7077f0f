import type { Knex } from 'knex'
import { lockEventLog } from '../events/index.js'
import { DAY_MS, periodStart } from './periods.js'
import { reasonCode } from './reasons.js'

/**
 * The writers of the analytics aggregates (migrations/20261126050000_analytics_rollups.ts, and the week and month
 * rows beside each day row of migrations/20261127020000_analytics_period_rollups.ts). Every writer of reviews,
 * orders and votes calls these inside its own transaction, so the aggregates are exact at every commit; the readers
 * (analytics.repository.ts) never scan reviews or orders. Cells are moved in a fixed order, so concurrent writers
 * lock them in the same order, and only under the store's event lock (`lockEventLog`): writers that append events
 * (order upserts, the review request scheduler, imports) take that lock before or after their own rows, so an
 * aggregate row is never held by a transaction waiting for the event lock (no lock-order deadlock on MySQL).
 * Only the events module is imported: reviews and orders import this file.
 */

export { DAY_MS }
/** The whole store's row in review_rollups: no platform product id is empty (products.schemas.ts, minLength 1). */
export const ALL_PRODUCTS = ''

export function dayOf (ms: number): number {
  return Math.floor(Number(ms) / DAY_MS)
}

function bump (deltas: Map<string, number>, key: string, by: number) {
  deltas.set(key, (deltas.get(key) ?? 0) + by)
}

/** An aggregate table, its key, and for daily ones the table of the same counts per week and month. */
interface Rollup {
  table: string
  key: string[]
  periods?: string
}
const REVIEW_ROLLUP: Rollup = {
  table: 'review_rollups',
  key: ['store_env_id', 'product_id', 'day', 'status', 'rating'],
  periods: 'review_period_rollups'
}
const ENGAGEMENT_ROLLUP: Rollup = {
  table: 'engagement_rollups',
  key: ['store_env_id', 'day', 'kind'],
  periods: 'engagement_period_rollups'
}
const FUNNEL: Rollup = { table: 'review_request_tallies', key: ['store_env_id', 'state', 'reason', 'reviewed'] }

/** The coarser grains kept beside every day row (periods.ts splitRange reads them for long ranges). */
const GRAINS = ['week', 'month'] as const
type Cell = Record<string, unknown> & { n: number }

/** The week and month cells a set of day cells adds to: the same key with `day` replaced by grain and first day. */
function periodCells (cells: Cell[]): Cell[] {
  const sums = new Map<string, Cell>()
  for (const { day, n, ...rest } of cells) {
    for (const grain of GRAINS) {
      const cell = { ...rest, grain, first_day: periodStart(Number(day), grain) }
      const key = JSON.stringify(cell)
      const held = sums.get(key)
      if (held) held.n += n
      else sums.set(key, { ...cell, n })
    }
  }
  return [...sums.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([, cell]) => cell).filter((cell) => cell.n !== 0)
}

/** Adds each cell's n to its row (inserting missing rows), a chunk of cells per statement. */
async function addTo (trx: Knex, table: string, key: string[], cells: Cell[]) {
  const added = trx.client.config.client === 'mysql2' ? 'VALUES(??)' : 'excluded.??'
  for (let i = 0; i < cells.length; i += 100) {
    await trx(table).insert(cells.slice(i, i + 100)).onConflict(key).merge({ n: trx.raw(`?? + ${added}`, [`${table}.n`, 'n']) })
  }
}

async function apply (
  trx: Knex,
  storeId: string,
  rollup: Rollup,
  deltas: Map<string, number>,
  parse: (key: string) => Record<string, unknown>
) {
  const cells = [...deltas.keys()].sort().filter((key) => deltas.get(key) !== 0).map((key) => ({ ...parse(key), n: deltas.get(key)! }))
  if (cells.length === 0) return
  await lockEventLog(trx as Knex.Transaction, storeId)
  await addTo(trx, rollup.table, rollup.key, cells)
  if (rollup.periods) {
    await addTo(
      trx,
      rollup.periods,
      rollup.key.flatMap((c) => c === 'day' ? ['grain', 'first_day'] : [c]),
      periodCells(cells)
    )
  }
}

/** What review_rollups counts of a review. */
export interface ReviewFact { store_env_id: string, product_id: string, written_at: number, status: string, rating: number }

/** Moves review_rollups from the `before` reviews to the `after` ones (an insert has no before, a delete no after). */
export async function moveReviews (trx: Knex, before: ReviewFact[], after: ReviewFact[]): Promise<void> {
  const byStore = new Map<string, Map<string, number>>()
  const count = (r: ReviewFact, by: number) => {
    if (!byStore.has(r.store_env_id)) byStore.set(r.store_env_id, new Map())
    const cell = [dayOf(r.written_at), r.status, Number(r.rating)].join('\u0000')
    bump(byStore.get(r.store_env_id)!, `${cell}\u0000${r.product_id}`, by)
    bump(byStore.get(r.store_env_id)!, `${cell}\u0000${ALL_PRODUCTS}`, by)
  }
  for (const r of before) count(r, -1)
  for (const r of after) count(r, 1)
  for (const [storeId, deltas] of byStore) {
    await apply(trx, storeId, REVIEW_ROLLUP, deltas, (key) => {
      const [day, status, rating, product] = key.split('\u0000')
      return { store_env_id: storeId, product_id: product, day: Number(day), status, rating: Number(rating) }
    })
  }
}

/** The funnel cell of each order that has a review request: state, reason code and whether it has a review. */
async function funnelCells (trx: Knex, storeId: string, orderIds: string[]): Promise<Map<string, string>> {
  const cells = new Map<string, string>()
  for (let i = 0; i < orderIds.length; i += 200) {
    const rows = await trx('orders as o').where('o.store_env_id', storeId).whereIn('o.platform_order_id', orderIds.slice(i, i + 200))
      .whereNotNull('o.review_request_state')
      .select('o.platform_order_id as id', 'o.review_request_state as state', 'o.review_request_reason as reason',
        trx.raw('EXISTS (SELECT 1 FROM reviews r WHERE r.store_env_id = o.store_env_id AND r.order_id = o.platform_order_id) AS reviewed'))
    for (const r of rows as Array<{ id: string, state: string, reason: string | null, reviewed: number }>) {
      cells.set(r.id, [r.state, reasonCode(r.state, r.reason), Number(r.reviewed) ? 1 : 0].join('\u0000'))
    }
  }
  return cells
}

/**
 * Runs `write` (anything that may change the review requests of these orders or whether they have a review) and
 * moves review_request_tallies by the difference it made: an order upsert, the scheduler sending a request, a review
 * naming an order being added or removed. Reading the orders before and after keeps one rule for every writer.
 */
export async function trackOrders<T> (trx: Knex, storeId: string, orderIds: Array<string | null>, write: () => Promise<T>): Promise<T> {
  const ids = [...new Set(orderIds.filter((id): id is string => id != null))]
  if (ids.length === 0) return write()
  const before = await funnelCells(trx, storeId, ids)
  const result = await write()
  const after = await funnelCells(trx, storeId, ids)
  const deltas = new Map<string, number>()
  for (const cell of before.values()) bump(deltas, cell, -1)
  for (const cell of after.values()) bump(deltas, cell, 1)
  await applyFunnel(trx, storeId, deltas)
  return result
}

function applyFunnel (trx: Knex, storeId: string, deltas: Map<string, number>) {
  return apply(trx, storeId, FUNNEL, deltas, (key) => {
    const [state, reason, reviewed] = key.split('\u0000')
    return { store_env_id: storeId, state, reason, reviewed: reviewed === '1' }
  })
}

export const ENGAGEMENT_KINDS = ['helpful', 'favourite', 'lead', 'video_upload'] as const
export type EngagementKind = typeof ENGAGEMENT_KINDS[number]

/**
 * Counts one storefront engagement on the day `at` falls on (GET /analytics/storefront). Call it in the transaction
 * that stores the engagement, once per new vote, favourite, lead or uploaded video.
 */
export async function recordEngagement (
  trx: Knex,
  { storeEnvId, kind, at }: { storeEnvId: string, kind: EngagementKind, at: number }
): Promise<void> {
  await apply(trx, storeEnvId, ENGAGEMENT_ROLLUP, new Map([[kind, 1]]), () => ({ store_env_id: storeEnvId, day: dayOf(at), kind }))
}

/** Every aggregate a store has: what rebuildStore empties and refills, and what a backup leaves out (backups/tables.ts). */
export const ROLLUP_TABLES = [
  'review_rollups',
  'review_period_rollups',
  'review_request_tallies',
  'engagement_rollups',
  'engagement_period_rollups',
  'review_tallies',
  'product_review_tallies'
]

/**
 * Recomputes every aggregate of one store from its rows (after a restore wrote them directly), review_tallies and
 * product_review_tallies included. Run in a transaction that holds the store's writes. Engagement is counted from
 * the rows that remain: leads and photos an erasure deleted no longer count.
 */
export async function rebuildStore (trx: Knex, storeId: string): Promise<void> {
  for (const table of ROLLUP_TABLES) await trx(table).where({ store_env_id: storeId }).delete()
  // The list's totals (migrations/20261125010000_review_tallies.ts), which the reviews repository keeps the same way.
  await trx.raw(
    'INSERT INTO review_tallies (store_env_id, status, rating, verified, n) SELECT store_env_id, status, rating, verified, COUNT(*) FROM reviews WHERE store_env_id = ? GROUP BY store_env_id, status, rating, verified',
    [storeId]
  )
  // The storefront's per-product summary (migrations/20261126010000_content.ts): published reviews only.
  await trx.raw(
    'INSERT INTO product_review_tallies (store_env_id, product_id, rating, n) SELECT store_env_id, product_id, rating, COUNT(*) FROM reviews WHERE store_env_id = ? AND status = \'published\' GROUP BY store_env_id, product_id, rating',
    [storeId]
  )
  const reviews = await trx('reviews').where({ store_env_id: storeId }).select(
    'store_env_id',
    'product_id',
    'written_at',
    'status',
    'rating'
  )
  await moveReviews(trx, [], reviews as ReviewFact[])
  const orderIds = await trx('orders').where({ store_env_id: storeId }).whereNotNull('review_request_state').pluck('platform_order_id')
  const deltas = new Map<string, number>()
  for (const cell of (await funnelCells(trx, storeId, orderIds as string[])).values()) bump(deltas, cell, 1)
  await applyFunnel(trx, storeId, deltas)
  const sources: Array<[EngagementKind, Knex.QueryBuilder]> = [
    ['helpful', trx('review_votes')],
    ['favourite', trx('gallery_favourites')],
    ['lead', trx('gallery_leads')],
    ['video_upload', trx('uploads').where('mime', 'like', 'video/%')]
  ]
  for (const [kind, rows] of sources) {
    const byDay = new Map<string, number>()
    for (const at of await rows.where({ store_env_id: storeId }).pluck('created_at') as number[]) bump(byDay, String(dayOf(at)), 1)
    await apply(trx, storeId, ENGAGEMENT_ROLLUP, byDay, (day) => ({ store_env_id: storeId, day: Number(day), kind }))
  }
}
