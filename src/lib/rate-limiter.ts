import type { Redis } from 'ioredis'
import { base62 } from './ids.js'
import type { Clock } from './clock.js'

// An entry's id only tells it apart from other entries of the same key at the same millisecond: this instance's
// random prefix and a counter do, without drawing random bytes on every request.
const INSTANCE = base62(8)
let entries = 0
function entryId (): string {
  entries = (entries + 1) % 0x7fffffff
  return `${INSTANCE}${entries}`
}

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

/** One counted request: its time, and an id that tells it apart from others at the same millisecond. */
export interface Entry { at: number, id: string }

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

// KEYS[1]: the log, KEYS[2..]: markers to read; ARGV: now, member, then (window ms, limit) pairs. Returns count and
// oldest per window, then each marker's value ('' when missing): freshness costs no round trip of its own.
// The oldest entry of a window is looked up only where verdictOf uses it (the window the caller is told about: least
// remaining, the first on a tie; and any window that refuses); elsewhere it is -1. Each redis.call costs the script
// about a microsecond, and this script runs on every request.
const SCRIPT = `
local now = tonumber(ARGV[1])
local n = (#ARGV - 2) / 2
local ms, limit, count = {}, {}, {}
local longest = 0
for w = 1, n do
  ms[w] = tonumber(ARGV[1 + 2 * w])
  limit[w] = tonumber(ARGV[2 + 2 * w])
  if ms[w] > longest then longest = ms[w] end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - longest)
local admit = true
for w = 1, n do
  if ms[w] == longest then
    count[w] = redis.call('ZCARD', KEYS[1])
  else
    count[w] = redis.call('ZCOUNT', KEYS[1], now - ms[w] + 1, '+inf')
  end
  if count[w] >= limit[w] then admit = false end
end
local tightest, least = 1, nil
for w = 1, n do
  local used = count[w]
  if admit then used = used + 1 end
  local remaining = math.max(0, limit[w] - used)
  if least == nil or remaining < least then
    least = remaining
    tightest = w
  end
end
local out = {}
for w = 1, n do
  local oldest = -1
  if count[w] > 0 and (w == tightest or count[w] >= limit[w]) then
    oldest = redis.call('ZRANGEBYSCORE', KEYS[1], now - ms[w] + 1, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2] or -1
  end
  out[#out + 1] = count[w]
  out[#out + 1] = oldest
end
if admit then
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], longest)
end
for i = 2, #KEYS do out[#out + 1] = redis.call('GET', KEYS[i]) or '' end
return out
`

export class RedisStore implements RateLimitStore {
  constructor (private readonly redis: Redis, private readonly prefix = 'eh:rl:') {
    // No numberOfKeys: the caller passes it, as the number of markers varies (ioredis defineCommand).
    redis.defineCommand('ehRateLimit', { lua: SCRIPT })
  }

  async hit (key: string, windows: Window[], entry: Entry, markers: string[] = []) {
    // One argument list built in place: this runs on every request.
    const argv: Array<string | number> = [1 + markers.length, this.prefix + key]
    for (const marker of markers) argv.push(marker)
    argv.push(entry.at, `${entry.at}-${entry.id}`)
    for (const w of windows) argv.push(w.ms, w.limit)
    const raw = await (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<Array<number | string>>>).ehRateLimit(...argv)
    const counts = windows.map((_, i) => {
      const oldest = Number(raw[i * 2 + 1])
      return { count: Number(raw[i * 2]), oldest: oldest < 0 ? null : oldest }
    })
    const values: string[] = []
    for (let i = windows.length * 2; i < raw.length; i++) values.push(String(raw[i]))
    return { counts, markers: values }
  }

  async remove (key: string, entry: Entry) {
    await this.redis.zrem(this.prefix + key, `${entry.at}-${entry.id}`)
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
    const entry = { at: this.options.clock(), id: entryId() }
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
