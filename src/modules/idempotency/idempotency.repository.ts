import type { Knex } from 'knex'
import { isDuplicateKey } from '../../db.js'

export interface IdempotencyRow {
  org_id: string
  key_hash: string
  fingerprint: string
  state: 'running' | 'done'
  token: string
  status: number | null
  headers: string | null
  body: string | null
  created_at: number | string
}

export interface StoredAnswer { status: number, headers: string, body: string | null }

/** The `idempotency_keys` table (migrations/20261204010000_idempotency_keys.ts). Every change names the claim's token. */
export function idempotencyRepository (db: Knex) {
  const table = () => db<IdempotencyRow>('idempotency_keys')
  const row = (orgId: string, keyHash: string) => table().where({ org_id: orgId, key_hash: keyHash })

  return {
    /** The atomic claim: false when the organization already holds a row for the key. */
    async insert (claim: Pick<IdempotencyRow, 'org_id' | 'key_hash' | 'fingerprint' | 'token'>, now: number): Promise<boolean> {
      try {
        await table().insert({ ...claim, state: 'running', status: null, headers: null, body: null, created_at: now })
        return true
      } catch (err) {
        if (isDuplicateKey(err)) return false
        throw err
      }
    },

    async find (orgId: string, keyHash: string): Promise<IdempotencyRow | undefined> {
      return row(orgId, keyHash).first()
    },

    /** A `running` row whose claim was given up for lost passes to a new claim, if no other request took it first. */
    async takeOver (orgId: string, keyHash: string, lost: string, token: string, now: number): Promise<boolean> {
      return (await row(orgId, keyHash).where({ state: 'running', token: lost }).update({ token, created_at: now })) === 1
    },

    /** The claim's answer, kept; false when the claim was taken over meanwhile (its holder's answer is not kept). */
    async finish (orgId: string, keyHash: string, token: string, answer: StoredAnswer): Promise<boolean> {
      return (await row(orgId, keyHash).where({ state: 'running', token }).update({ state: 'done', ...answer })) === 1
    },

    async remove (orgId: string, keyHash: string, token: string): Promise<void> {
      await row(orgId, keyHash).where({ token }).delete()
    },

    async removeCreatedUntil (until: number): Promise<number> {
      return table().where('created_at', '<=', until).delete()
    }
  }
}

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>
