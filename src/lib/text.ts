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
