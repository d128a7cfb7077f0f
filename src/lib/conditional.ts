import { createHash } from 'node:crypto'

/**
 * Conditional requests (RFC 9110 section 13, docs/contract/api-conventions.md#conditional-requests). A single
 * resource's ETag is a digest of its body as sent, so it changes exactly when the body does, whatever changed it, and
 * differs between credentials that are shown different bodies.
 */

/** The strong ETag of a body: its SHA-256, base64url, cut to 27 characters (160 bits), quoted. */
export function etagOf (body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/**
 * Checks the current representation of the resource a write is about to change, inside the write's transaction and
 * after its row is locked: throws (412 `precondition_failed`) when the client's If-Match names another version.
 */
export type Precondition = (current: unknown) => void

/** A header longer than this cannot be a list of our ETags worth reading (each is 29 characters). */
export const MAX_CONDITION_LENGTH = 2048

// RFC 9110 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text (obs-text left out).
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e]*"$/

/** The entity tags of an If-Match or If-None-Match value: `*`, a list of tags, or null when it is malformed. */
export function parseCondition (value: string): '*' | Array<{ weak: boolean, tag: string }> | null {
  if (value.length > MAX_CONDITION_LENGTH) return null
  const trimmed = value.trim()
  if (trimmed === '*') return '*'
  const tags: Array<{ weak: boolean, tag: string }> = []
  for (const part of trimmed.split(',')) {
    const item = part.trim()
    if (item === '') continue
    if (!ENTITY_TAG.test(item)) return null
    const weak = item.startsWith('W/')
    tags.push({ weak, tag: weak ? item.slice(2) : item })
  }
  return tags.length > 0 ? tags : null
}

/** If-None-Match: weak comparison (RFC 9110 13.1.2); `*` matches any current representation. A malformed value never matches. */
export function noneMatchHits (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const tags = parseCondition(header)
  if (tags === null) return false
  return tags === '*' || tags.some(({ tag }) => tag === etag)
}

/** If-Match: strong comparison (RFC 9110 13.1.1): a weak tag never matches. */
export function ifMatchHolds (tags: Array<{ weak: boolean, tag: string }>, etag: string): boolean {
  return tags.some(({ weak, tag }) => !weak && tag === etag)
}
