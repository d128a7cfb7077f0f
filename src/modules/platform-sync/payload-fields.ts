import { inDateRange, parseDateTime } from '../../lib/formats.js'

/**
 * Readers for the loosely typed JSON the platforms send or answer with: every field is checked for its type, and
 * anything else reads as null (or empty), so an odd value becomes a missing field rather than an exception.
 */
export type Json = Record<string, unknown>

export interface LineItem { platformProductId: string, quantity: number }

export const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? value as Json : {})
export const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(obj) : [])
export const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null)
export const idOf = (
  value: unknown
): string | null => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : text(value))

/** A platform date as ISO 8601 with a zone: WooCommerce's `*_gmt` fields carry none (they are UTC). */
export function date (value: unknown, utcWithoutZone = false): string | null {
  const raw = text(value)
  if (!raw) return null
  const candidate = utcWithoutZone && !/(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? `${raw}Z` : raw
  const at = parseDateTime(candidate)
  return at === null ? null : new Date(at).toISOString()
}

/** BigCommerce's V2 API dates are RFC 2822, e.g. `Tue, 05 Mar 2019 21:40:11 +0000`; an empty string is "not yet". */
export function rfc2822Date (value: unknown): string | null {
  const raw = text(value)
  if (!raw || !/^(?:[A-Z][a-z]{2}, )?\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/.test(raw)) return null
  const at = Date.parse(raw)
  return Number.isFinite(at) && inDateRange(at) ? new Date(at).toISOString() : null
}

export function money (value: unknown): number | null {
  const amount = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,12}(\.\d+)?$/.test(value) ? Number(value) : NaN
  return Number.isFinite(amount) ? amount : null
}

export function currency (value: unknown): string | null {
  const code = text(value)?.toUpperCase() ?? null
  return code && /^[A-Z]{3}$/.test(code) ? code : null
}

/** Line items with a product (a custom line has none), quantities summed per product. */
export function lineItems (lines: Json[]): LineItem[] {
  const quantities = new Map<string, number>()
  for (const line of lines) {
    const product = idOf(line.product_id)
    const quantity = typeof line.quantity === 'number' && Number.isSafeInteger(line.quantity) && line.quantity > 0 ? line.quantity : 0
    if (product && product !== '0' && quantity > 0) quantities.set(product, (quantities.get(product) ?? 0) + quantity)
  }
  return [...quantities].map(([platformProductId, quantity]) => ({ platformProductId, quantity }))
}

export const fullName = (first: unknown, last: unknown) => [text(first), text(last)].filter(Boolean).join(' ') || null

export function latest (dates: Array<string | null>): string | null {
  const known = dates.filter((d): d is string => d !== null).sort()
  return known[known.length - 1] ?? null
}
