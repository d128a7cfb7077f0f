/** Small formatting helpers for the templates (dates in UTC, as everywhere in the service). */
export const helpers = {
  date (value: string | null | undefined): string {
    if (!value) return '—'
    return value.replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, ' UTC')
  },
  label (value: string): string {
    return value.charAt(0).toUpperCase() + value.slice(1).replace(/[-_]/g, ' ')
  },
  query (params: Record<string, string | number | undefined>): string {
    const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '')
    return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : ''
  },
  /** Integer cents as a decimal amount, without float arithmetic (2499 -> "24.99"). */
  cents (value: number): string {
    const sign = value < 0 ? '-' : ''
    const abs = Math.abs(value)
    return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
  }
}
