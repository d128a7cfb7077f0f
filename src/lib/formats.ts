import { parseIsoDateTime } from './clock.js'

/**
 * The formats the API's validators (routes, and the per-item checks of bulk writes and imports) use where
 * ajv-formats' own are too lax: see `addApiFormats`.
 */

/**
 * docs/contract/api-conventions.md#dates-and-sizes: dates outside 1970–9999 are refused, so every stored date can be
 * served as ISO 8601.
 */
export const MIN_DATE_MS = Date.UTC(1970, 0, 1)
export const MAX_DATE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

export function inDateRange (ms: number): boolean {
  return ms >= MIN_DATE_MS && ms <= MAX_DATE_MS
}

/**
 * Epoch ms of an API date-time, or null: ISO 8601 with a time zone, a real calendar day (no 30 February), and an
 * instant within 1970–9999 UTC. The one rule for every date the API takes (bodies, querystrings, key expiry).
 */
export function parseDateTime (value: string): number | null {
  const at = parseIsoDateTime(value)
  return at !== null && inDateRange(at) ? at : null
}

export function isDateTime (value: string): boolean {
  return parseDateTime(value) !== null
}

/** An absolute http(s) URL: product and image links end up in storefront widgets, so no `javascript:` or `data:`. */
export function isWebUrl (value: string): boolean {
  try { return /^https?:$/.test(new URL(value).protocol) } catch { return false }
}

interface FormatHost { addFormat: (name: string, format: { type: 'string', validate: (value: string) => boolean }) => unknown }

/**
 * For fastify's `ajv.onCreate` (it runs after ajv-formats): `date-time` without year 0000, 30 February or leap
 * seconds, within 1970–9999; `uri` limited to http(s).
 */
export function addApiFormats (ajv: FormatHost): void {
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime })
  ajv.addFormat('uri', { type: 'string', validate: isWebUrl })
}

/** ISO 8601 text (already validated) to epoch ms; null stays null. */
export function toMs (value: string | null | undefined): number | null {
  return value == null ? null : parseDateTime(value)
}
