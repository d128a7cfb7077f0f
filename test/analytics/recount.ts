import type { FastifyInstance } from 'fastify'
import { call, type manualClock } from '../helper.js'
import type { Tenant } from '../factories.js'

/** The brute force the analytics tests compare against: counts taken from the rows themselves, not the aggregates. */

export const DAY = 86_400_000
export const NOW = Date.parse('2026-03-20T12:00:00Z')

/** mulberry32: the same "random" data on every run, so a failure can be replayed. */
export function prng (seed: number) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

type Clock = ReturnType<typeof manualClock>

/**
 * Each call a little later: the manual clock stands still, and the per-credential limits are 10/s, 50 per 10 s and
 * 200/min (src/features.ts), so a test making more than 50 calls steps 300 ms.
 */
export function api (app: FastifyInstance, tenant: Tenant, clock: Clock | null, stepMs = 150) {
  return (method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    clock?.advance(stepMs)
    return call(app, { method, url, key: tenant.key, store: tenant.storeId, payload: payload as object })
  }
}

export interface Row { product_id: string, status: string, rating: number, written_at: number }
export type Interval = 'day' | 'week' | 'month'

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Every period label of from..to from the calendar (UTC; weeks from Monday), oldest first, each with `empty()`. */
export function calendar<T> (q: { from: string, to: string, interval: Interval }, empty: () => T) {
  const label = (ms: number) => {
    const d = new Date(ms)
    if (q.interval === 'day') return isoDay(ms)
    if (q.interval === 'week') return isoDay(ms - ((d.getUTCDay() + 6) % 7) * DAY)
    return `${isoDay(ms).slice(0, 7)}-01`
  }
  const from = Date.parse(`${q.from}T00:00:00Z`)
  const to = Date.parse(`${q.to}T00:00:00Z`) + DAY - 1
  const periods = new Map<string, T>()
  for (let day = from; day <= to; day += DAY) if (!periods.has(label(day))) periods.set(label(day), empty())
  return { label, from, to, periods }
}

/** GET /analytics/reviews recounted from the review rows. */
export function expected (rows: Row[], q: { from: string, to: string, interval: Interval, productId?: string, status?: string }) {
  const { label, from, to, periods } = calendar<number[]>(q, () => [])
  const kept = rows.filter((r) =>
    r.written_at >= from && r.written_at <= to && (!q.productId || r.product_id === q.productId) && (!q.status || r.status === q.status)
  )
  for (const r of kept) periods.get(label(r.written_at))!.push(r.rating)
  const avg = (list: number[]) => list.length ? Math.round(list.reduce((a, b) => a + b, 0) / list.length * 100) / 100 : null
  const all = kept.map((r) => r.rating)
  return {
    series: [...periods].map(([period, list]) => ({ period, count: list.length, averageRating: avg(list) })),
    distribution: Object.fromEntries([1, 2, 3, 4, 5].map((r) => [String(r), all.filter((x) => x === r).length])),
    totals: { count: all.length, averageRating: avg(all) }
  }
}

export async function reviewRows (app: FastifyInstance, storeId: string): Promise<Row[]> {
  const rows = await app.services.db('reviews').where({ store_env_id: storeId }).select('product_id', 'status', 'rating', 'written_at')
  return rows.map((r: Row) => ({ ...r, rating: Number(r.rating), written_at: Number(r.written_at) }))
}
