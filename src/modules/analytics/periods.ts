/**
 * UTC calendar periods over day numbers (days since 1970-01-01): weeks start on Monday (ISO 8601), months on the
 * 1st. A series is built from day rows, so week and month totals are sums of exact day totals.
 */
export type Interval = 'day' | 'week' | 'month'

export const DAY_MS = 86_400_000

/** The longest series one request may ask for (e.g. about 2.7 years of days, 83 years of months). */
export const MAX_PERIODS = 1000

export function dateOfDay (day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/** The UTC day of a date (YYYY-MM-DD) or of an ISO 8601 date-time's instant; NaN for neither. */
export function dayOfDate (date: string): number {
  return Math.floor(Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) / DAY_MS)
}

/** The first day of the period holding `day`. */
export function periodStart (day: number, interval: Interval): number {
  if (interval === 'day') return day
  // 1970-01-01 was a Thursday: three days after a Monday.
  if (interval === 'week') return day - ((day + 3) % 7)
  const d = new Date(day * DAY_MS)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS
}

export function nextPeriod (start: number, interval: Interval): number {
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

/**
 * Which rows answer [fromDay, toDay] in `interval` periods: the whole weeks or months inside it from their own
 * rollup rows (`whole`, first and last period start, inclusive), the partial periods at either end from day rows
 * (`days`, inclusive day ranges). A day series, or a range inside one period, is all days.
 */
export function splitRange (
  fromDay: number,
  toDay: number,
  interval: Interval
): { days: Array<[number, number]>, whole: [number, number] | null } {
  if (interval === 'day') return { days: [[fromDay, toDay]], whole: null }
  const first = periodStart(fromDay, interval) === fromDay ? fromDay : nextPeriod(periodStart(fromDay, interval), interval)
  const lastStart = periodStart(toDay, interval)
  const last = nextPeriod(lastStart, interval) - 1 === toDay ? lastStart : periodStart(lastStart - 1, interval)
  if (last < first) return { days: [[fromDay, toDay]], whole: null }
  const days: Array<[number, number]> = []
  if (fromDay < first) days.push([fromDay, first - 1])
  const end = nextPeriod(last, interval) - 1
  if (end < toDay) days.push([end + 1, toDay])
  return { days, whole: [first, last] }
}
