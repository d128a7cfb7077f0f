import type { Knex } from 'knex'
import { ALL_PRODUCTS } from './rollups.js'

export interface DayCount { day: number, key: string, n: number }

/** Reads of the aggregates only (rollups.ts): never reviews or orders themselves. */
export function analyticsRepository (db: Knex) {
  const counts = (rows: Array<{ day: number | string, key: string | number, n: number | string }>): DayCount[] =>
    rows.map((r) => ({ day: Number(r.day), key: String(r.key), n: Number(r.n) }))

  return {
    /** Reviews per day and rating in [fromDay, toDay], of one product or (null) the whole store. */
    async reviewDays (storeId: string, range: { fromDay: number, toDay: number }, filter: { productId?: string, status?: string }): Promise<DayCount[]> {
      const query = db('review_rollups').where({ store_env_id: storeId, product_id: filter.productId ?? ALL_PRODUCTS })
        .whereBetween('day', [range.fromDay, range.toDay])
      if (filter.status) query.where({ status: filter.status })
      return counts(await query.groupBy('day', 'rating').select('day', 'rating as key').sum({ n: 'n' }))
    },

    async engagementDays (storeId: string, range: { fromDay: number, toDay: number }): Promise<DayCount[]> {
      return counts(await db('engagement_rollups').where({ store_env_id: storeId }).whereBetween('day', [range.fromDay, range.toDay]).select('day', 'kind as key', 'n'))
    },

    async funnel (storeId: string): Promise<Array<{ state: string, reason: string, reviewed: boolean, n: number }>> {
      const rows = await db('review_request_tallies').where({ store_env_id: storeId }).where('n', '>', 0).select('state', 'reason', 'reviewed', 'n')
      return rows.map((r: { state: string, reason: string, reviewed: number | boolean, n: number | string }) => ({ state: r.state, reason: r.reason, reviewed: Boolean(Number(r.reviewed)), n: Number(r.n) }))
    }
  }
}
export type AnalyticsRepository = ReturnType<typeof analyticsRepository>
