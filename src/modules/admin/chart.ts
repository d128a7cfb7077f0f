/**
 * Server-rendered SVG for the analytics page: bars for counts, a line for the average rating (1–5 on its own
 * scale). Presentation attributes only (no inline style): the admin pages' CSP allows no inline styles or scripts.
 */
export interface Point { label: string, count: number, average: number | null }

const W = 720
const H = 220
const PAD = { left: 40, right: 36, top: 12, bottom: 28 }

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function trendChart (points: Point[], title: string): string {
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const max = Math.max(1, ...points.map((p) => p.count))
  const step = plotW / Math.max(1, points.length)
  const barW = Math.max(1, step * 0.7)
  const y = (count: number) => PAD.top + plotH - (count / max) * plotH
  const yAvg = (avg: number) => PAD.top + plotH - ((avg - 1) / 4) * plotH
  const bars = points.map((p, i) => {
    const x = PAD.left + i * step + (step - barW) / 2
    return `<rect x="${x.toFixed(1)}" y="${y(p.count).toFixed(1)}" width="${barW.toFixed(1)}" height="${(PAD.top + plotH - y(p.count)).toFixed(1)}" fill="#4f6bed"><title>${escape(p.label)}: ${p.count} reviews${p.average === null ? '' : `, average ${p.average}`}</title></rect>`
  })
  const line = points.map((p, i) =>
    p.average === null ? null : `${(PAD.left + i * step + step / 2).toFixed(1)},${yAvg(p.average).toFixed(1)}`
  ).filter(Boolean)
  const every = Math.max(1, Math.ceil(points.length / 8))
  const labels = points.map((p, i) => i % every === 0 ? `<text x="${(PAD.left + i * step + step / 2).toFixed(1)}" y="${H - 8}" font-size="10" text-anchor="middle" fill="#555">${escape(p.label)}</text>` : '').join('')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escape(title)}" class="chart">`,
    `<title>${escape(title)}</title>`,
    `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}" stroke="#999"/>`,
    `<text x="${PAD.left - 6}" y="${PAD.top + 8}" font-size="10" text-anchor="end" fill="#555">${max}</text>`,
    `<text x="${PAD.left - 6}" y="${PAD.top + plotH}" font-size="10" text-anchor="end" fill="#555">0</text>`,
    `<text x="${W - PAD.right + 6}" y="${PAD.top + 8}" font-size="10" fill="#c0392b">5★</text>`,
    `<text x="${W - PAD.right + 6}" y="${PAD.top + plotH}" font-size="10" fill="#c0392b">1★</text>`,
    ...bars,
    line.length > 1 ? `<polyline points="${line.join(' ')}" fill="none" stroke="#c0392b" stroke-width="2"/>` : '',
    labels,
    '</svg>'
  ].join('')
}

/** Horizontal bars of the rating distribution, 5 stars first. */
export function distributionChart (distribution: Record<string, number>): string {
  const total = Math.max(1, ...Object.values(distribution))
  const rows = [5, 4, 3, 2, 1].map((rating, i) => {
    const n = distribution[String(rating)] ?? 0
    const w = (n / total) * 240
    return `<text x="0" y="${i * 22 + 14}" font-size="12" fill="#333">${rating}★</text><rect x="28" y="${i * 22 + 3}" width="${w.toFixed(1)}" height="14" fill="#f1c40f"/><text x="${(34 + w).toFixed(1)}" y="${i * 22 + 14}" font-size="12" fill="#333">${n}</text>`
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 112" role="img" aria-label="Rating distribution" class="chart small">${rows.join('')}</svg>`
}
