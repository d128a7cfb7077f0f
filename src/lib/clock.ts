/** Milliseconds since the epoch. Injected everywhere time matters so tests can move it. */
export type Clock = () => number

export const systemClock: Clock = () => Date.now()

/** Epoch ms of 10000-01-01T00:00:00Z: past it `toISOString` writes a six-digit, signed year. */
const YEAR_10000 = 253_402_300_800_000
const DAY = 86_400_000

const two = (n: number) => (n < 10 ? '0' : '') + n

/**
 * `new Date(ms).toISOString()`, written out by hand for the instants the API stores (1970–9999, whole ms): every
 * timestamp of every answer goes through here (a page of 20 products has 40), and the builtin costs three times as
 * much. Anything else takes the builtin, which also throws for what it cannot represent.
 */
export function iso (ms: number | string | null | undefined): string | null {
  if (ms == null) return null
  const at = Number(ms)
  if (!Number.isInteger(at) || at < 0 || at >= YEAR_10000) return new Date(at).toISOString()
  const days = Math.floor(at / DAY)
  let rest = at - days * DAY
  // Civil date from days since the epoch (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shifted = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1
  const month = shifted < 10 ? shifted + 3 : shifted - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  const millis = rest - seconds * 1000
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${String(millis).padStart(3, '0')}Z`
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

/**
 * Epoch ms of an ISO 8601 date-time with a time zone (`Z` or `±hh:mm`), or null. Date.parse alone is too lenient
 * for an API: it reads `December 25, 2027`, takes a zone-less time as server-local, and rolls Feb 30 into March.
 */
export function parseIsoDateTime (value: string): number | null {
  const m = ISO_DATE_TIME.exec(value)
  if (!m) return null
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number)
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : at
}
