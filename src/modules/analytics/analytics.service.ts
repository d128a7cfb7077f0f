import { errors } from '../../errors.js'
import type { Clock } from '../../lib/clock.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { MarkedCache } from '../../lib/marked-cache.js'
import { MAX_DATE_MS, MIN_DATE_MS } from '../../lib/formats.js'
import type { AnalyticsRepository, DayCount } from './analytics.repository.js'
import { dateOfDay, dayOfDate, MAX_PERIODS, periodStart, periodStarts, splitRange, type Interval } from './periods.js'
import { REASON_CODES, type ReasonCode } from './reasons.js'
import { dayOf, ENGAGEMENT_KINDS } from './rollups.js'

interface Deps { repo: AnalyticsRepository, clock: Clock, fresh?: Freshness }

export interface RangeQuery { from?: string, to?: string, interval?: Interval }

/** The window a series covers when the caller names none: the last 30 days up to today (UTC). */
const DEFAULT_DAYS = 30
const RATINGS = ['1', '2', '3', '4', '5'] as const

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places

function averageOf (sum: number, count: number): number | null {
  return count === 0 ? null : round(sum / count, 2)
}

/** from/to as inclusive UTC days, refused outside 1970–9999, reversed, or longer than MAX_PERIODS periods. */
function resolveRange (query: RangeQuery, today: number) {
  const interval = query.interval ?? 'day'
  const toDay = query.to ? dayOfDate(query.to) : today
  const fromDay = query.from ? dayOfDate(query.from) : toDay - (DEFAULT_DAYS - 1)
  const inRange = (day: number) => day >= dayOf(MIN_DATE_MS) && day <= dayOf(MAX_DATE_MS)
  if (!inRange(fromDay) || !inRange(toDay)) throw new errors.InvalidRequest('from and to must be dates between 1970-01-01 and 9999-12-31')
  if (fromDay > toDay) throw new errors.InvalidRequest('from must not be after to')
  const starts = periodStarts(fromDay, toDay, interval)
  if (!starts) throw new errors.InvalidRequest(`A series holds at most ${MAX_PERIODS} periods: narrow from..to or use a longer interval`)
  return { interval, fromDay, toDay, starts, parts: { ...splitRange(fromDay, toDay, interval), interval } }
}

/** Sums day rows and whole week or month rows into their periods, keyed by row key (a rating, an engagement kind). */
function bucket (rows: DayCount[], starts: number[], interval: Interval) {
  const index = new Map(starts.map((start, i) => [start, i]))
  const periods = starts.map(() => new Map<string, number>())
  for (const row of rows) {
    const cell = periods[index.get(periodStart(row.day, interval))!]
    cell.set(row.key, (cell.get(row.key) ?? 0) + row.n)
  }
  return periods
}

type ReviewsQuery = RangeQuery & { productId?: string, status?: 'pending' | 'published' | 'rejected' }

/** Review counts, average rating and distribution per period, from the rollup rows of the range. */
function reviewSeries ({ interval, fromDay, toDay, starts }: ReturnType<typeof resolveRange>, query: ReviewsQuery, rows: DayCount[]) {
  const distribution = Object.fromEntries(RATINGS.map((r) => [r, 0])) as Record<typeof RATINGS[number], number>
  let count = 0
  let sum = 0
  const series = bucket(rows, starts, interval).map((ratings, i) => {
    let n = 0
    let s = 0
    for (const [rating, k] of ratings) {
      n += k
      s += Number(rating) * k
      distribution[rating as typeof RATINGS[number]] += k
    }
    count += n
    sum += s
    return { period: dateOfDay(starts[i]), count: n, averageRating: averageOf(s, n) }
  })
  return {
    from: dateOfDay(fromDay),
    to: dateOfDay(toDay),
    interval,
    productId: query.productId ?? null,
    status: query.status ?? null,
    series,
    distribution,
    totals: { count, averageRating: averageOf(sum, count) }
  }
}

export function analyticsService ({ repo, clock, fresh }: Deps) {
  /**
   * Review series kept under the store's reviews marker (lib/marked-cache.ts): every write to its reviews bumps it
   * after commit, so a series is exact on the next request on every instance, and a dashboard's repeated reads of a
   * long range sum no rows at all in between. Without Redis nothing is kept.
   */
  const series = new MarkedCache<ReturnType<typeof reviewSeries>>(500)

  async function reviewsMarker (storeId: string): Promise<string | null> {
    if (!fresh?.shared) return null
    return (await fresh.read([marker.reviews(storeId)]))?.[0] ?? null
  }

  return {
    /**
     * `seen`: the reviews marker as the request's limiter call read it (a route with `keptUnder: 'reviews'`); the
     * admin app, which has no such call, leaves it out and the marker is read here.
     */
    async reviews (storeId: string, query: ReviewsQuery, seen?: string | null) {
      const range = resolveRange(query, dayOf(clock()))
      const key = [storeId, range.interval, range.fromDay, range.toDay, query.productId ?? '', query.status ?? ''].join('\0')
      // Read before the rows, so that what is kept under it can only be as old as the marker says.
      if (seen === undefined) seen = await reviewsMarker(storeId)
      const now = clock()
      const held = seen === null ? undefined : series.get(key, seen, now)
      if (held) return held
      const answer = reviewSeries(range, query, await repo.reviewCounts(storeId, range.parts, query))
      if (seen !== null) series.set(key, answer, seen, now)
      return answer
    },

    async storefront (storeId: string, query: RangeQuery) {
      const { interval, fromDay, toDay, starts, parts } = resolveRange(query, dayOf(clock()))
      const rows = await repo.engagementCounts(storeId, parts)
      const figures = (kinds: Map<string, number>) => ({
        helpfulVotes: kinds.get('helpful') ?? 0,
        favourites: kinds.get('favourite') ?? 0,
        leads: kinds.get('lead') ?? 0,
        videoUploads: kinds.get('video_upload') ?? 0
      })
      const all = new Map<string, number>(ENGAGEMENT_KINDS.map((k) => [k, 0]))
      for (const row of rows) all.set(row.key, (all.get(row.key) ?? 0) + row.n)
      return {
        from: dateOfDay(fromDay),
        to: dateOfDay(toDay),
        interval,
        series: bucket(rows, starts, interval).map((kinds, i) => ({ period: dateOfDay(starts[i]), ...figures(kinds) })),
        totals: figures(all)
      }
    },

    /** Every order with a review request, by its current state; `reviewed` counts sent requests whose order has a review. */
    async reviewRequests (storeId: string) {
      const funnel = { scheduled: 0, sent: 0, failed: 0, skipped: 0, reviewed: 0 }
      const reasons = new Map<string, { state: 'skipped' | 'failed', code: ReasonCode, count: number }>()
      for (const cell of await repo.funnel(storeId)) {
        if (cell.state in funnel) funnel[cell.state as keyof typeof funnel] += cell.n
        if (cell.state === 'sent' && cell.reviewed) funnel.reviewed += cell.n
        if (cell.state !== 'skipped' && cell.state !== 'failed') continue
        const key = `${cell.state}:${cell.reason}`
        const held = reasons.get(key) ?? { state: cell.state, code: cell.reason as ReasonCode, count: 0 }
        held.count += cell.n
        reasons.set(key, held)
      }
      return {
        ...funnel,
        conversionRate: funnel.sent === 0 ? null : round(funnel.reviewed / funnel.sent, 4),
        reasons: [...reasons.values()]
          .sort((a, b) => b.count - a.count || a.state.localeCompare(b.state) || a.code.localeCompare(b.code))
          .map((r) => ({ ...r, description: REASON_CODES[r.code] ?? REASON_CODES.other }))
      }
    }
  }
}
export type AnalyticsService = ReturnType<typeof analyticsService>
