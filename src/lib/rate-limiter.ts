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
// logs and the markers in one MGET, counts every window by binary search, and writes a log back (trimmed to the
// longest window) in one SET when its request is admitted.
// One call settles every request of a batch (RedisStore.hit), in order: a key that appears twice sees the first
// request's entry. KEYS: per request its log, then the markers to read. ARGV[1]: how many requests; then per request
// its number of keys, its number of windows, its time, and (window ms, limit) pairs. Returns per request the count
// and oldest (-1: none) per window, then each marker's value ('' when missing): freshness costs no round trip.
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
local written, out = {}, {}
local k, a = 1, 2
for _ = 1, tonumber(ARGV[1]) do
  local keys, windows, now = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local key = KEYS[k]
  log = written[key] or values[k] or ''
  local size = #log / 8
  local admit, longest = true, 0
  for _ = 1, windows do
    local ms, limit = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    if ms > longest then longest = ms end
    local first = after(now - ms, size)
    local count = size - first + 1
    if count >= limit then admit = false end
    out[#out + 1] = count
    out[#out + 1] = count > 0 and at(first) or -1
  end
  if admit and longest > 0 then
    local keep, here = after(now - longest, size), after(now, size)
    written[key] = log:sub(keep * 8 - 7, here * 8 - 8) .. struct.pack('>d', now) .. log:sub(here * 8 - 7)
    redis.call('SET', key, written[key], 'PX', longest)
  end
  for i = k + 1, k + keys - 1 do out[#out + 1] = values[i] or '' end
  k = k + keys
end
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

interface Pending {
  key: string
  windows: Window[]
  at: number
  markers: string[]
  resolve: (hit: Hit) => void
  reject: (err: unknown) => void
}

/** Requests of one call at most: a script holds Redis for its whole run. */
const MOST = 32

export class RedisStore implements RateLimitStore {
  private readonly hitScript: Script
  private readonly removeScript: Script
  private pending: Pending[] = []

  constructor (redis: Redis, private readonly prefix = 'eh:rlog:') {
    // No numberOfKeys for the hit: the caller passes it, as the number of markers varies (ioredis defineCommand).
    redis.defineCommand('ehRateLimit', { lua: HIT })
    redis.defineCommand('ehRateLimitRemove', { lua: REMOVE, numberOfKeys: 1 })
    const commands = redis as unknown as Record<string, Script>
    this.hitScript = commands.ehRateLimit.bind(redis)
    this.removeScript = commands.ehRateLimitRemove.bind(redis)
  }

  /**
   * The requests that arrive while the event loop works through one batch of ready sockets go to Redis as one
   * script call, sent once that batch is done (or at MOST): a call's fixed cost, in Redis and in the client, was
   * most of what a request's limit cost. The call is written at once: holding the socket's writes back until a later
   * setImmediate (as the connection did for single commands) delays a batch made in setImmediate by a whole turn.
   */
  hit (key: string, windows: Window[], entry: Entry, markers: string[] = []): Promise<Hit> {
    return new Promise((resolve, reject) => {
      const size = this.pending.push({ key: this.prefix + key, windows, at: entry.at, markers, resolve, reject })
      if (size === 1) setImmediate(this.flush)
      else if (size === MOST) this.flush()
    })
  }

  private readonly flush = () => {
    const batch = this.pending
    if (!batch.length) return
    this.pending = []
    const keys: string[] = []
    const argv: Array<string | number> = [batch.length]
    for (const p of batch) {
      keys.push(p.key)
      for (const marker of p.markers) keys.push(marker)
      argv.push(1 + p.markers.length, p.windows.length, p.at)
      for (const w of p.windows) argv.push(w.ms, w.limit)
    }
    // Runs from setImmediate: whatever goes wrong must reach the requests, not the process.
    let call: Promise<unknown>
    try {
      call = this.hitScript(keys.length, ...keys, ...argv)
    } catch (err) {
      call = Promise.reject(err)
    }
    call.then((raw) => {
      const out = raw as Array<number | string>
      let i = 0
      for (const p of batch) {
        const counts = []
        for (let w = 0; w < p.windows.length; w++, i += 2) {
          const oldest = Number(out[i + 1])
          counts.push({ count: Number(out[i]), oldest: oldest < 0 ? null : oldest })
        }
        const values: string[] = []
        for (let m = 0; m < p.markers.length; m++) values.push(String(out[i++]))
        p.resolve({ counts, markers: values })
      }
    }, (err: unknown) => { for (const p of batch) p.reject(err) })
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
function verdictOf (
  windows: Window[],
  counts: Array<{ count: number, oldest: number | null }>,
  now: number,
  markers: string[] | null
): Verdict {
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
