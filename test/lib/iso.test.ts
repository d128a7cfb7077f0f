import t from 'tap'
import { iso } from '../../src/lib/clock.js'

const builtin = (ms: number) => new Date(ms).toISOString()

t.test('iso writes what toISOString writes across 1970-9999, leap days and the ends of days included', async (t) => {
  const edges = [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 253_402_300_799_999]
  for (const ms of edges) t.equal(iso(ms), builtin(ms), String(ms))
  let mismatch: number | null = null
  for (let i = 0; i < 200_000 && mismatch === null; i++) {
    const ms = Math.floor(Math.random() * 253_402_300_800_000)
    if (iso(ms) !== builtin(ms)) mismatch = ms
  }
  t.equal(mismatch, null, 'no random instant of the range is written differently')
})

t.test('iso reads numbers the database hands back as strings', async (t) => {
  t.equal(iso('1764000000123'), '2025-11-24T16:00:00.123Z')
})

t.test('iso leaves instants outside the stored range to the builtin: signed years, fractions, before 1970', async (t) => {
  for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15, 1.5, 1_764_000_000_000.7]) {
    t.equal(iso(ms), builtin(ms), String(ms))
  }
  t.equal(iso(null), null)
  t.equal(iso(undefined), null)
  t.throws(() => iso(Number.NaN), RangeError)
})
