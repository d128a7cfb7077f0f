import { FormatRegistry } from '@sinclair/typebox'

/**
 * Formats for schemas checked with TypeBox's own compiler (per-item checks of bulk writes and imports), matching
 * what the route validator (ajv) accepts for the same keywords.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL.test(v))
if (!FormatRegistry.Has('uri')) {
  FormatRegistry.Set('uri', (v) => {
    try { return /^https?:$/.test(new URL(v).protocol) } catch { return false }
  })
}

/** ISO 8601 text to epoch ms; null stays null. */
export function toMs (value: string | null | undefined): number | null {
  return value == null ? null : Date.parse(value)
}
