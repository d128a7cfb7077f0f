import type { Redis } from 'ioredis'
import type { Clock } from './clock.js'

export interface Window { ms: number, limit: number }

export interface Verdict {
  allowed: boolean
  /** The tightest window: the one with the fewest requests left (ties: the shortest). */
  limit: number
  remaining: number
  resetSeconds: number
  retryAfterSeconds: number
  /** The values of the markers asked for, read in the same atomic step; null when the store cannot tell (memory). */
  markers?: string[] | null
}

/** One counted request: its time (requests of the same millisecond count the same). */
export interface Entry { at: number }

/**
 * Sliding-log limiter over several windows at once: a request is admitted only when every window has room,
 * and a refused request is not counted. Window i covers (now - ms, now], so the edges are exact.
 * rate-limiter-flexible and @fastify/rate-limit take one window and read the wall clock; we need three windows
 * applied together and an injectable clock to test the edges, hence this small module.
 */
export interface Hit {
  counts: Array<{ count: number, oldest: number | null }>
  /** Values of the extra keys read alongside (lib/freshness.ts), '' for a missing key; null: not read. */
  markers: string[] | null
}

export interface RateLimitStore {
  /**
   * Checks every window and counts `entry` when all have room, in one atomic step (so concurrent requests can
   * never be admitted beyond a limit); answers the counts seen before it, and the values of `markers` (full keys).
   */
  hit (key: string, windows: Window[], entry: Entry, markers?: string[]): Promise<Hit>
  /** Takes a counted entry back out (a reserved attempt that turned out not to count). */
  remove (key: string, entry: Entry): Promise<void>
}

export class MemoryStore implements RateLimitStore {
  private readonly logs = new Map<string, number[]>()
  private sweeps = 0

  // No await between the check and the push: the event loop makes the step atomic.
  async hit (key: string, windows: Window[], { at: now }: Entry) {
    const longest = Math.max(...windows.map((w) => w.ms))
    const log = (this.logs.get(key) ?? []).filter((at) => at > now - longest)
    const counts = windows.map((w) => {
      const inside = log.filter((at) => at > now - w.ms)
      return { count: inside.length, oldest: inside.length ? inside[0] : null }
    })
    if (counts.every((c, i) => c.count < windows[i].limit)) log.push(now)
    this.logs.set(key, log)
    if (++this.sweeps % 1000 === 0) this.sweep(now, longest)
    return { counts, markers: null }
  }

  // Entries at the same millisecond count the same, so taking out any one of them is taking out this one.
  async remove (key: string, { at }: Entry) {
    const log = this.logs.get(key)
    const index = log?.lastIndexOf(at) ?? -1
    if (index >= 0) log!.splice(index, 1)
  }

  private sweep (now: number, longest: number) {
    for (const [key, log] of this.logs) {
      if (!log.length || log[log.length - 1] <= now - longest) this.logs.delete(key)
    }
  }
}

// The log of a key is one string: the times of its counted requests, ascending, each an 8-byte big-endian double
// (exact for integer milliseconds). A sorted set did the same with a command per window; each command a script
// makes costs Redis about as much as the work it asks for, and this script runs on every request, so it reads the
// log and the markers in one MGET, counts every window by binary search, and writes the log back (trimmed to the
// longest window) in one SET when the request is admitted.
// KEYS[1]: the log, KEYS[2..]: markers to read; ARGV: now, then (window ms, limit) pairs. Returns count and oldest
// (-1: none) per window, then each marker's value ('' when missing): freshness costs no round trip of its own.
const LOG = `
local log = ''
local function at (i) return (struct.unpack('>d', log, i * 8 - 7)) end
-- The first entry later than t (size + 1 when none): entries at t itself lie outside a window ending after t.
local function after (t, size)
  local lo, hi = 1, size + 1
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if at(mid) > t then hi = mid else lo = mid + 1 end
  end
  return lo
end
`
const HIT = LOG + `
local values = redis.call('MGET', unpack(KEYS))
log = values[1] or ''
local size = #log / 8
local now = tonumber(ARGV[1])
local out, admit, longest = {}, true, 0
for w = 1, (#ARGV - 1) / 2 do
  local ms, limit = tonumber(ARGV[2 * w]), tonumber(ARGV[2 * w + 1])
  if ms > longest then longest = ms end
  local first = after(now - ms, size)
  local count = size - first + 1
  if count >= limit then admit = false end
  out[2 * w - 1] = count
  out[2 * w] = count > 0 and at(first) or -1
end
if admit and longest > 0 then
  local keep, here = after(now - longest, size), after(now, size)
  redis.call('SET', KEYS[1], log:sub(keep * 8 - 7, here * 8 - 8) .. struct.pack('>d', now) .. log:sub(here * 8 - 7), 'PX', longest)
end
for i = 2, #KEYS do out[#out + 1] = values[i] or '' end
return out
`
// KEYS[1]: the log; ARGV[1]: the time of one entry to take out (any of that millisecond: they count the same).
const REMOVE = LOG + `
log = redis.call('GET', KEYS[1]) or ''
local i = after(tonumber(ARGV[1]), #log / 8) - 1
if i < 1 or at(i) ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], log:sub(1, i * 8 - 8) .. log:sub(i * 8 + 1), 'KEEPTTL')
return 1
`

type Script = (...args: Array<string | number>) => Promise<unknown>

export class RedisStore implements RateLimitStore {
  private readonly hitScript: Script
  private readonly removeScript: Script

  constructor (redis: Redis, private readonly prefix = 'eh:rlog:') {
    // No numberOfKeys for the hit: the caller passes it, as the number of markers varies (ioredis defineCommand).
    redis.defineCommand('ehRateLimit', { lua: HIT })
    redis.defineCommand('ehRateLimitRemove', { lua: REMOVE, numberOfKeys: 1 })
    const commands = redis as unknown as Record<string, Script>
    this.hitScript = commands.ehRateLimit.bind(redis)
    this.removeScript = commands.ehRateLimitRemove.bind(redis)
  }

  async hit (key: string, windows: Window[], entry: Entry, markers: string[] = []) {
    // One argument list built in place: this runs on every request.
    const argv: Array<string | number> = [1 + markers.length, this.prefix + key]
    for (const marker of markers) argv.push(marker)
    argv.push(entry.at)
    for (const w of windows) argv.push(w.ms, w.limit)
    const raw = await this.hitScript(...argv) as Array<number | string>
    const counts = windows.map((_, i) => {
      const oldest = Number(raw[i * 2 + 1])
      return { count: Number(raw[i * 2]), oldest: oldest < 0 ? null : oldest }
    })
    const values: string[] = []
    for (let i = windows.length * 2; i < raw.length; i++) values.push(String(raw[i]))
    return { counts, markers: values }
  }

  async remove (key: string, entry: Entry) {
    await this.removeScript(this.prefix + key, entry.at)
  }
}

export interface LimiterOptions {
  store: RateLimitStore
  clock: Clock
  /** Used while the primary store fails (Redis unreachable): limits stay on, per instance. */
  fallback?: RateLimitStore
  onStoreError?: (err: unknown) => void
}

/** An attempt counted ahead of the work it guards; `release` takes it back when it turns out not to count. */
export interface Reservation {
  verdict: Verdict
  release: () => Promise<void>
}

export class RateLimiter {
  constructor (private readonly options: LimiterOptions) {}

  /**
   * Counts a request against every window and says whether it is admitted; with `markers` (full Redis keys), the
   * verdict also carries their values, or null when the store in use cannot read them.
   */
  async consume (key: string, windows: Window[], markers?: string[]): Promise<Verdict> {
    // This runs on every request: no reservation, no closure, one async frame over the store's.
    return this.count(key, windows, markers)
  }

  /**
   * Counts an attempt before slow work (a password check) in the same atomic step as the check of the limit,
   * so concurrent attempts cannot all pass a check that none of them has counted yet.
   */
  async reserve (key: string, windows: Window[], markers?: string[]): Promise<Reservation> {
    const counted: Counted = { store: this.options.store, entry: null }
    const verdict = await this.count(key, windows, markers, counted)
    // The entry goes back to the store that counted it; if that fails, the attempt simply stays counted.
    const release = async () => {
      if (verdict.allowed) await counted.store.remove(key, counted.entry!).catch((err: unknown) => this.options.onStoreError?.(err))
    }
    return { verdict, release }
  }

  private async count (key: string, windows: Window[], markers: string[] | undefined, counted?: Counted): Promise<Verdict> {
    const entry = { at: this.options.clock() }
    let store = this.options.store
    let hit
    try {
      hit = await store.hit(key, windows, entry, markers)
    } catch (err) {
      if (!this.options.fallback) throw err
      this.options.onStoreError?.(err)
      store = this.options.fallback
      hit = await store.hit(key, windows, entry, markers)
    }
    if (counted) {
      counted.store = store
      counted.entry = entry
    }
    return verdictOf(windows, hit.counts, entry.at, hit.markers)
  }
}

/** Where `reserve`'s attempt was counted, so `release` takes it out of that store. */
interface Counted { store: RateLimitStore, entry: Entry | null }

/** The caller is told about the tightest window: the fewest requests left, the first on a tie. */
function verdictOf (windows: Window[], counts: Array<{ count: number, oldest: number | null }>, now: number, markers: string[] | null): Verdict {
  let allowed = true
  for (let i = 0; i < windows.length; i++) if (counts[i].count >= windows[i].limit) allowed = false
  let tightest = 0
  let least = Infinity
  let tightestResetMs = 0
  let retryAfterMs = 0
  for (let i = 0; i < windows.length; i++) {
    const { ms, limit } = windows[i]
    const { count, oldest } = counts[i]
    const remaining = Math.max(0, limit - (allowed ? count + 1 : count))
    const resetMs = oldest === null ? ms : oldest + ms - now
    if (count >= limit) retryAfterMs = Math.max(retryAfterMs, resetMs)
    if (remaining < least) {
      least = remaining
      tightest = i
      tightestResetMs = resetMs
    }
  }
  return {
    allowed,
    limit: windows[tightest].limit,
    remaining: least,
    resetSeconds: Math.max(1, Math.ceil(tightestResetMs / 1000)),
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    markers
  }
}
