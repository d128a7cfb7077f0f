/** Milliseconds since the epoch. Injected everywhere time matters so tests can move it. */
export type Clock = () => number

export const systemClock: Clock = () => Date.now()

export function iso (ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(Number(ms)).toISOString()
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
