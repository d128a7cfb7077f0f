/**
 * The database side of bench:analytics, apart from HTTP and the machine's other load: each long-range read of
 * GET /analytics/reviews made 60 times on one connection, as it was before the week and month rollups (every day
 * row of the range) and as it is now (whole periods from review_period_rollups, the partial ends by day). Rows are
 * the rollup rows the query sums (a status filter also steps over the other statuses' index entries), not the
 * grouped rows it returns.
 */
import type { Knex } from 'knex'
import { analyticsRepository, type RangeParts } from '../src/modules/analytics/analytics.repository.js'
import { dayOfDate, splitRange, type Interval } from '../src/modules/analytics/periods.js'
import { ALL_PRODUCTS } from '../src/modules/analytics/rollups.js'

type Filter = { productId?: string, status?: string }

async function rowsSummed (db: Knex, storeId: string, parts: RangeParts, filter: Filter): Promise<number> {
  const narrow = (q: Knex.QueryBuilder) => {
    q.where({ store_env_id: storeId, product_id: filter.productId ?? ALL_PRODUCTS })
    return filter.status ? q.where({ status: filter.status }) : q
  }
  let n = 0
  for (const range of parts.days) n += Number((await narrow(db('review_rollups')).whereBetween('day', range).count({ n: '*' }))[0].n)
  if (parts.whole) {
    n += Number(
      (await narrow(db('review_period_rollups')).where({ grain: parts.interval }).whereBetween('first_day', parts.whole).count({ n: '*' }))[
        0
      ].n
    )
  }
  return n
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))].toFixed(1)

/** A markdown table: per target, rows summed and single-connection p50/p99 ms, by day rows only and with period rows. */
export async function periodRowsTable (
  db: Knex,
  storeId: string,
  from: string,
  to: string,
  targets: Array<[string, Interval, Filter]>
): Promise<string> {
  const repo = analyticsRepository(db)
  const [fromDay, toDay] = [dayOfDate(from), dayOfDate(to)]
  const lines = ['| read (one connection, 60 times) | how | rows summed | p50 ms | p99 ms |', '|---|---|---:|---:|---:|']
  for (const [name, interval, filter] of targets) {
    const ways: Array<[string, RangeParts]> = [['every day row (before)', { days: [[fromDay, toDay]], whole: null, interval }], [
      'whole periods + partial days (now)',
      { ...splitRange(fromDay, toDay, interval), interval }
    ]]
    for (const [how, parts] of ways) {
      const times: number[] = []
      for (let i = 0; i < 60; i++) {
        const started = performance.now()
        await repo.reviewCounts(storeId, parts, filter)
        times.push(performance.now() - started)
      }
      times.sort((a, b) => a - b)
      lines.push(
        `| ${name} | ${how} | ${await rowsSummed(db, storeId, parts, filter)} | ${percentile(times, 0.5)} | ${percentile(times, 0.99)} |`
      )
    }
  }
  return lines.join('\n')
}
