import { DAY_MS } from './rollups.js'

/**
 * UTC calendar periods over day numbers (days since 1970-01-01): weeks start on Monday (ISO 8601), months on the
 * 1st. A series is built from day rows, so week and month totals are sums of exact day totals.
 */
export type Interval = 'day' | 'week' | 'month'

/** The longest series one request may ask for (e.g. about 2.7 years of days, 83 years of months). */
export const MAX_PERIODS = 1000

export function dateOfDay (day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

export function dayOfDate (date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS)
}

/** The first day of the period holding `day`. */
export function periodStart (day: number, interval: Interval): number {
  if (interval === 'day') return day
  // 1970-01-01 was a Thursday: three days after a Monday.
  if (interval === 'week') return day - ((day + 3) % 7)
  const d = new Date(day * DAY_MS)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS
}

function nextPeriod (start: number, interval: Interval): number {
  if (interval === 'day') return start + 1
  if (interval === 'week') return start + 7
  const d = new Date(start * DAY_MS)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS
}

/** The starts of every period touching [fromDay, toDay], oldest first; null when there would be more than `max`. */
export function periodStarts (fromDay: number, toDay: number, interval: Interval, max = MAX_PERIODS): number[] | null {
  const starts: number[] = []
  for (let start = periodStart(fromDay, interval); start <= toDay; start = nextPeriod(start, interval)) {
    if (starts.length === max) return null
    starts.push(start)
  }
  return starts
}
