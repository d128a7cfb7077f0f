import { randomBytes } from 'node:crypto'
import type { Clock } from '../../lib/clock.js'
import { decrypt, encrypt, sha256 } from '../../lib/secrets.js'
import type { IdempotencyRepository, IdempotencyRow } from './idempotency.repository.js'

/** How long a key holds its answer (docs/contract/api-conventions.md#idempotent-requests). */
export const KEY_TTL_MS = 24 * 3_600_000
/**
 * How long a `running` claim blocks its key. A request that dies with its instance leaves its row `running`; after
 * this it counts as lost and the next request with the key runs. Longer than any request may take to answer.
 */
export const CLAIM_LEASE_MS = 5 * 60_000

/** The headers of an answer worth giving again; the rest (request id, rate limits) belong to the repeat itself. */
const KEPT_HEADERS = ['content-type', 'location'] as const

export interface Claim { orgId: string, keyHash: string, token: string }

export interface Replay { status: number, headers: Record<string, string>, body: Buffer | null }

export type Outcome =
  | { kind: 'claimed', claim: Claim }
  | { kind: 'replay', answer: Replay }
  | { kind: 'reused' }
  | { kind: 'in_progress' }

export interface Answer { status: number, headers: Record<string, unknown>, body: string | Buffer | null }

/** A repeat loses a race at most this often (the row it saw changed under it) before it is told to retry. */
const ATTEMPTS = 3

/**
 * The rules of the `Idempotency-Key` header: the first request with a key claims it, a repeat of the same request
 * gets the first answer, another request with the key is refused. The claim is a row in the shared database, so every
 * instance sees it, and it survives a restart.
 */
export function idempotencyService ({ repo, clock, secretKey }: { repo: IdempotencyRepository, clock: Clock, secretKey: string }) {
  /** The kept answer, or null when it cannot be read: sealed under a SECRET_KEY the service no longer has. */
  function replayOf (row: IdempotencyRow): Replay | null {
    const stored = JSON.parse(row.headers ?? '{}') as Record<string, string>
    let body: Buffer | null = null
    try {
      body = row.body === null ? null : Buffer.from(decrypt(row.body, secretKey), 'base64')
    } catch {
      return null
    }
    return { status: row.status!, headers: stored, body }
  }

  /** What the row another request holds means for this one, or null when it no longer counts (expired, lost). */
  async function against (row: IdempotencyRow, fingerprint: string, token: string, now: number): Promise<Outcome | null> {
    const createdAt = Number(row.created_at)
    if (createdAt <= now - KEY_TTL_MS) {
      await repo.remove(row.org_id, row.key_hash, row.token)
      return null
    }
    if (row.fingerprint !== fingerprint) return { kind: 'reused' }
    if (row.state === 'done') {
      const answer = replayOf(row)
      if (answer) return { kind: 'replay', answer }
      // Kept before SECRET_KEY changed: forgotten like an expired key, and the request runs.
      await repo.remove(row.org_id, row.key_hash, row.token)
      return null
    }
    if (createdAt > now - CLAIM_LEASE_MS) return { kind: 'in_progress' }
    const claim = { orgId: row.org_id, keyHash: row.key_hash, token }
    return (await repo.takeOver(row.org_id, row.key_hash, row.token, token, now)) ? { kind: 'claimed', claim } : null
  }

  return {
    async begin (orgId: string, key: string, fingerprint: string): Promise<Outcome> {
      const keyHash = sha256(key)
      const token = randomBytes(16).toString('hex')
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const now = clock()
        if (await repo.insert({ org_id: orgId, key_hash: keyHash, fingerprint, token }, now)) {
          return { kind: 'claimed', claim: { orgId, keyHash, token } }
        }
        const row = await repo.find(orgId, keyHash)
        const outcome = row ? await against(row, fingerprint, token, now) : null
        if (outcome) return outcome
      }
      return { kind: 'in_progress' }
    },

    /** Keeps the answer for repeats; false when the claim was lost meanwhile (a repeat will run again). */
    async complete (claim: Claim, answer: Answer): Promise<boolean> {
      const headers: Record<string, string> = {}
      for (const name of KEPT_HEADERS) {
        const value = answer.headers[name]
        if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value)
      }
      const body = answer.body === null ? null : encrypt(Buffer.from(answer.body).toString('base64'), secretKey)
      return repo.finish(claim.orgId, claim.keyHash, claim.token, { status: answer.status, headers: JSON.stringify(headers), body })
    },

    /** Gives the key back (a 5xx, a request that never answered): the next request with it runs. */
    async abandon (claim: Claim): Promise<void> {
      await repo.remove(claim.orgId, claim.keyHash, claim.token)
    },

    /** Forgets keys older than 24 hours (a background job; a repeat also ignores an expired row it meets). */
    async purgeExpired (): Promise<number> {
      return repo.removeCreatedUntil(clock() - KEY_TTL_MS)
    }
  }
}

export type IdempotencyService = ReturnType<typeof idempotencyService>
