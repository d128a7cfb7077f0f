import { createHash } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import { staleAfter } from './freshness.js'

/**
 * An answer as sent: the serialized body and the ETag that is its digest. The body is kept as bytes: a string body
 * is joined to the head and encoded again on every send (a page of reviews is ~5 KB).
 */
export interface Answer { body: Buffer, etag: string }

export function answerOf (json: string): Answer {
  const body = Buffer.from(json)
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

interface Entry<V> { value: V, seen: string, staleAt: number }

/**
 * Per-instance memory of values derived from the database, each kept under the value a generation marker
 * (lib/freshness.ts) had when it was read, before the database was. A value is served only while the marker still
 * has that value; the writers bump the marker after commit, so every instance reads again on its next request.
 * Without shared markers (no Redis) callers have no value to pass and keep nothing. The oldest entry goes first when
 * the cache is full. Entries are counted, not weighed: a cache of pages (up to a few hundred KB each, twice with
 * their JSON) keeps a hundred or two.
 */
export class MarkedCache<V> {
  private readonly entries = new Map<string, Entry<V>>()
  /** Loads under way, by key, with the marker value each was started under. */
  private readonly loading = new Map<string, { seen: string, value: Promise<V> }>()

  constructor (private readonly maxEntries = 2_000) {}

  get (key: string, seen: string, now: number): V | undefined {
    const entry = this.entries.get(key)
    if (!entry || entry.seen !== seen || now >= entry.staleAt) return undefined
    return entry.value
  }

  /**
   * The value kept under `key` while the marker still reads `seen`, else `load()`'s, kept under `seen`. With no
   * `seen` (markers not shared) it always loads and keeps nothing. `load` must read the database after `seen` was
   * read (the request's limiter call does), so what is kept is never older than the marker value it is kept under.
   *
   * Requests that miss the same key under the same marker value while a load is under way wait for that load rather
   * than start their own: when a page goes stale, every connection reading it would otherwise run the same query at
   * once (fifty identical counts over a million rows). The load began after the first of them read the marker, and
   * any write the others could have seen would have moved the value they read, so its answer is as fresh as theirs.
   */
  through (key: string, seen: string | null, load: () => Promise<V>): Promise<V> {
    if (seen === null) return load()
    const now = Date.now()
    const held = this.get(key, seen, now)
    if (held !== undefined) return Promise.resolve(held)
    const pending = this.loading.get(key)
    if (pending?.seen === seen) return pending.value
    const value = new Promise<V>((resolve) => resolve(load())).then((loaded) => {
      this.set(key, loaded, seen, now)
      return loaded
    }).finally(() => {
      if (this.loading.get(key)?.value === value) this.loading.delete(key)
    })
    this.loading.set(key, { seen, value })
    return value
  }

  set (key: string, value: V, seen: string, now: number): void {
    this.entries.delete(key)
    this.entries.set(key, { value, seen, staleAt: staleAfter(now) })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}

const serialized = new WeakMap<object, Buffer>()

/**
 * Sends `value` as the route's response schema serializes it. A kept value is the same object on every read, so
 * its JSON is made once, not per request (a page of 100 events costs more to serialize than to fetch).
 */
export function sendKept (reply: FastifyReply, value: object): FastifyReply {
  let body = serialized.get(value)
  if (body === undefined) {
    body = Buffer.from(String(reply.serialize(value)))
    serialized.set(value, body)
  }
  return reply.type('application/json; charset=utf-8').send(body)
}
