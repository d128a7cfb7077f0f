import type { Knex } from 'knex'
import type { Interval, splitRange } from './periods.js'
import { ALL_PRODUCTS } from './rollups.js'

/** Counts of one day, or of one whole week or month (`day` is then its first day), per key (a rating, a kind). */
export interface DayCount { day: number, key: string, n: number }

/** A range as periods.ts splitRange cuts it, with the interval its whole periods are in. */
export type RangeParts = ReturnType<typeof splitRange> & { interval: Interval }

/** Reads of the aggregates only (rollups.ts): never reviews or orders themselves. */
export function analyticsRepository (db: Knex) {
  const counts = (rows: Array<{ day: number | string, key: string | number, n: number | string }>): DayCount[] =>
    rows.map((r) => ({ day: Number(r.day), key: String(r.key), n: Number(r.n) }))

  /** Day rows of the partial periods and week or month rows of the whole ones, each narrowed by `narrow`. */
  async function rangeCounts (
    parts: RangeParts,
    tables: { days: string, periods: string },
    key: string,
    narrow: (q: Knex.QueryBuilder) => Knex.QueryBuilder
  ) {
    const reads: Array<Promise<DayCount[]>> = []
    if (parts.days.length) {
      const days = narrow(db(tables.days)).where((q) => {
        for (const range of parts.days) q.orWhereBetween('day', range)
      })
      reads.push(days.groupBy('day', key).select('day', `${key} as key`).sum({ n: 'n' }).then(counts))
    }
    if (parts.whole) {
      const periods = narrow(db(tables.periods)).where({ grain: parts.interval }).whereBetween('first_day', parts.whole)
      reads.push(periods.groupBy('first_day', key).select('first_day as day', `${key} as key`).sum({ n: 'n' }).then(counts))
    }
    return (await Promise.all(reads)).flat()
  }

  return {
    /** Reviews per period and rating over `parts`, of one product or (null) the whole store. */
    async reviewCounts (storeId: string, parts: RangeParts, filter: { productId?: string, status?: string }): Promise<DayCount[]> {
      return rangeCounts(parts, { days: 'review_rollups', periods: 'review_period_rollups' }, 'rating', (q) => {
        q.where({ store_env_id: storeId, product_id: filter.productId ?? ALL_PRODUCTS })
        return filter.status ? q.where({ status: filter.status }) : q
      })
    },

    async engagementCounts (storeId: string, parts: RangeParts): Promise<DayCount[]> {
      return rangeCounts(
        parts,
        { days: 'engagement_rollups', periods: 'engagement_period_rollups' },
        'kind',
        (q) => q.where({ store_env_id: storeId })
      )
    },

    async funnel (storeId: string): Promise<Array<{ state: string, reason: string, reviewed: boolean, n: number }>> {
      const rows = await db('review_request_tallies').where({ store_env_id: storeId }).where('n', '>', 0).select(
        'state',
        'reason',
        'reviewed',
        'n'
      )
      return rows.map((r: { state: string, reason: string, reviewed: number | boolean, n: number | string }) => ({
        state: r.state,
        reason: r.reason,
        reviewed: Boolean(Number(r.reviewed)),
        n: Number(r.n)
      }))
    }
  }
}
export type AnalyticsRepository = ReturnType<typeof analyticsRepository>
