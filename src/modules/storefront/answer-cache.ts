import { createHash } from 'node:crypto'

/** An answer as sent: the serialized body and the ETag that is its digest. */
export interface Answer { body: string, etag: string }

interface Entry extends Answer { seen: string, at: number }

const MAX_ENTRIES = 2_000
/** A backstop only, as long as the answers' own `Cache-Control: max-age`: markers settle freshness per request. */
const MAX_AGE_MS = 60_000

export function answerOf (body: string): Answer {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/**
 * Per-instance memory of the storefront's review answers (a product's page of reviews, its summary), serialized,
 * with their ETags. An answer is served from memory only while the store's storefront marker still has the value
 * this request's limiter call read (plugins/storefront.ts): every write to the store's reviews bumps it after
 * commit (reviews.repository's `changed`), so every instance reads the database again on its next request. Without
 * shared markers (no Redis) the caller passes no value and nothing is kept. The oldest entry goes first when full.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>()

  get (key: string, seen: string, now: number): Answer | undefined {
    const entry = this.entries.get(key)
    if (!entry || entry.seen !== seen || now - entry.at >= MAX_AGE_MS) return undefined
    return entry
  }

  set (key: string, answer: Answer, seen: string, now: number): void {
    this.entries.delete(key)
    this.entries.set(key, { ...answer, seen, at: now })
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
  }
}
