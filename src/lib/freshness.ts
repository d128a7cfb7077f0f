import type { Redis } from 'ioredis'
import type { Knex } from 'knex'
import { base62 } from './ids.js'

/**
 * Generation markers: one Redis key per thing an authenticated request depends on (an API key, an OAuth grant,
 * a person's memberships, a store). Every change that could refuse a request sets the thing's marker to a new
 * value; each instance remembers the values it saw when it last read the database, and the rate limiter's script
 * returns the current values in the same round trip that counts the request (pipeline/credential-cache.ts). A
 * changed value sends that instance back to the database, so a revocation is seen on the very next request on
 * every instance, while an unchanged one lets a request pass with no query at all.
 */
export const marker = {
  /** An API key, by the SHA-256 of its secret: known from the request before any lookup. */
  key: (secretHash: string) => `key:${secretHash}`,
  grant: (grantId: string) => `grant:${grantId}`,
  /** Any membership of the person (removal, role change), in whichever organization. */
  person: (personId: string) => `person:${personId}`,
  store: (storeId: string) => `store:${storeId}`,
  /** What is derived from a store's reviews: the storefront's answers, review analytics (lib/marked-cache.ts). */
  reviews: (storeId: string) => `reviews:${storeId}`,
  /** A store's event log: every append and every rewrite of an event's data (erasure). */
  events: (storeId: string) => `events:${storeId}`
}

/**
 * When a value an instance keeps under a marker (pipeline/credential-cache.ts, lib/marked-cache.ts) is read again at
 * the latest, whatever the marker says: a backstop against a marker update lost to a Redis failure that outlived the
 * retries. Each entry draws its own age between 40 and 60 s. With one fixed age, entries read together (every
 * credential an instance meets in its first seconds) were all read again in the same second, every minute:
 * 9,000 keys made ~26,000 queries within 6 s and halved the instance's throughput while they ran.
 */
export function staleAfter (now: number): number {
  return now + 60_000 - Math.floor(Math.random() * 20_000)
}

/**
 * Runs `bump` once the writer's transaction has committed (at once outside one), as Freshness.bump asks: bumped
 * earlier, an instance could read the new value and then the old rows, and keep those under it.
 */
export function afterCommit (trx: Knex, bump: () => Promise<void>): void {
  const pending = trx.isTransaction ? (trx as Knex.Transaction).executionPromise : Promise.resolve()
  pending.then(bump, () => {}).catch(() => {})
}

/**
 * A marker that expires only makes a cached entry look changed (a reload), never unchanged, so markers may go:
 * they are kept long enough to outlive any cached entry many times over.
 */
const MARKER_TTL_MS = 7 * 86_400_000

export interface Freshness {
  /** True when markers live in Redis, shared by every instance; false: nothing may be cached. */
  readonly shared: boolean
  /** The Redis key of a marker, for scripts that read markers in their own call. */
  keyOf: (name: string) => string
  /** The markers' current values ('' when never set), or null when Redis cannot be asked. */
  read: (names: string[]) => Promise<string[] | null>
  /**
   * Gives each marker a new value. Call it after the change is committed: an instance that reads the marker
   * before the commit and the database after it only caches what it read, which a later bump invalidates.
   * Failures are kept and retried when Redis is back (instances also forget their caches then).
   */
  bump: (names: string[]) => Promise<void>
  /**
   * Resolves once the updates under way (those `afterCommit` starts included) have ended, with the markers still
   * waiting for Redis: for a process about to exit (the CLI), which will not be there to retry them.
   */
  settled: () => Promise<string[]>
}

type Warn = (obj: object, msg: string) => void

export function freshness (redis: Redis | null, prefix: string, warn: Warn = () => {}): Freshness {
  const keyOf = (name: string) => `${prefix}gen:${name}`
  if (!redis) {
    return { shared: false, keyOf, read: async () => null, bump: async () => {}, settled: async () => [] }
  }
  const pending = new Set<string>()
  const underWay = new Set<Promise<void>>()

  async function write (names: string[]) {
    const value = `${Date.now().toString(36)}.${base62(8)}`
    const batch = redis!.multi()
    for (const name of names) batch.set(keyOf(name), value, 'PX', MARKER_TTL_MS)
    const results = await batch.exec()
    const failed = results?.find(([err]) => err)
    if (!results || failed) throw failed?.[0] ?? new Error('marker update aborted')
  }

  redis.on('ready', () => {
    if (!pending.size) return
    const names = [...pending]
    pending.clear()
    write(names).catch((err: Error) => {
      for (const name of names) pending.add(name)
      warn({ err: { message: err.message } }, 'marker update failed again')
    })
  })

  return {
    shared: true,
    keyOf,
    async read (names) {
      if (!names.length) return []
      try {
        return (await redis.mget(names.map(keyOf))).map((v) => v ?? '')
      } catch {
        return null
      }
    },
    async bump (names) {
      if (!names.length) return
      const update = write(names).catch((err: Error) => {
        for (const name of names) pending.add(name)
        warn({ err: { message: err.message } }, 'marker update failed; retried when Redis is back')
      })
      underWay.add(update)
      await update.finally(() => underWay.delete(update))
    },
    async settled () {
      // A bump `afterCommit` chains to a commit starts a turn later than the commit's own callers resume.
      await new Promise((resolve) => setImmediate(resolve))
      await Promise.all(underWay)
      return [...pending]
    }
  }
}
