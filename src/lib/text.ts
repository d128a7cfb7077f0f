/**
 * `text` cut to at most `max` characters (Unicode code points, as MySQL counts a VARCHAR), ending in `…` when cut.
 * For text the service composes from stored values (reasons, messages) that must fit its column; a 4-byte
 * character is never split into half a surrogate pair.
 */
export function clip (text: string, max: number): string {
  if (text.length <= max) return text
  const chars = Array.from(text)
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

/**
 * The first `max` characters of `text` (code points, as MySQL counts a VARCHAR), with no mark: for values kept
 * as received (a delivery id, an error a receiver answered) cut to their column; never half a surrogate pair,
 * which either database would store as U+FFFD.
 */
export function prefix (text: string, max: number): string {
  if (text.length <= max) return text
  const chars = Array.from(text)
  return chars.length <= max ? text : chars.slice(0, max).join('')
}
