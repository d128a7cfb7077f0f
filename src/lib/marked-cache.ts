import { createHash } from 'node:crypto'

/** An answer as sent: the serialized body and the ETag that is its digest. */
export interface Answer { body: string, etag: string }

export function answerOf (body: string): Answer {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

interface Entry<V> { value: V, seen: string, at: number }

/** A backstop only, as long as the storefront answers' own `Cache-Control: max-age`: markers settle freshness. */
const MAX_AGE_MS = 60_000

/**
 * Per-instance memory of values derived from the database, each kept under the value a generation marker
 * (lib/freshness.ts) had when it was read, before the database was. A value is served only while the marker still
 * has that value; the writers bump the marker after commit, so every instance reads again on its next request.
 * Without shared markers (no Redis) callers have no value to pass and keep nothing. The oldest entry goes first when
 * the cache is full.
 */
export class MarkedCache<V> {
  private readonly entries = new Map<string, Entry<V>>()

  constructor (private readonly maxEntries = 2_000) {}

  get (key: string, seen: string, now: number): V | undefined {
    const entry = this.entries.get(key)
    if (!entry || entry.seen !== seen || now - entry.at >= MAX_AGE_MS) return undefined
    return entry.value
  }

  set (key: string, value: V, seen: string, now: number): void {
    this.entries.delete(key)
    this.entries.set(key, { value, seen, at: now })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}
