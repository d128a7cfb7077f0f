import type { Knex } from 'knex'
import DataLoader from 'dataloader'
import type { Role } from '../../lib/permissions.js'
import { countAndPage } from '../../lib/pagination.js'

export interface ApiKeyRow {
  id: string
  org_id: string
  name: string
  role: Role
  scopes: string
  prefix: string
  secret_hash: string
  expires_at: number | null
  revoked_at: number | null
  first_used_at: number | null
  last_used_at: number | null
  created_by: string | null
  created_at: number
}

/** Tenant ids are explicit arguments on every query that reads or changes a key. */
export function apiKeysRepository (db: Knex) {
  // Lookups made in the same tick share one query: the credential cache starts the backstop reads that fall due
  // within a short window together (pipeline/credential-cache.ts), and concurrent first uses arrive together too.
  const bySecretHash = new DataLoader<string, ApiKeyRow | undefined>(async (hashes) => {
    const rows = await db<ApiKeyRow>('api_keys').whereIn('secret_hash', hashes)
    const found = new Map(rows.map((row) => [row.secret_hash, row]))
    return hashes.map((hash) => found.get(hash))
  }, { cache: false, maxBatchSize: 200 })

  return {
    insert (row: ApiKeyRow, trx: Knex = db) {
      return trx('api_keys').insert(row)
    },

    findBySecretHash (hash: string): Promise<ApiKeyRow | undefined> {
      return bySecretHash.load(hash)
    },

    find (orgId: string, id: string, trx: Knex = db): Promise<ApiKeyRow | undefined> {
      return trx<ApiKeyRow>('api_keys').where({ org_id: orgId, id }).first()
    },

    async list (orgId: string, page: { offset: number, limit: number }) {
      const base = db<ApiKeyRow>('api_keys').where({ org_id: orgId })
      return countAndPage<ApiKeyRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
    },

    /** True only for the one call that revokes it, so the audit entry is written once. */
    async revoke (orgId: string, id: string, now: number, trx: Knex = db): Promise<boolean> {
      const changed = await trx('api_keys').where({ org_id: orgId, id }).whereNull('revoked_at').update({ revoked_at: now })
      return changed === 1
    },

    /** True only for the request that records the first use, however many race for it. */
    async markFirstUse (id: string, now: number): Promise<boolean> {
      const changed = await db('api_keys').where({ id }).whereNull('first_used_at').update({ first_used_at: now, last_used_at: now })
      return changed === 1
    },

    async touch (id: string, now: number, everyMs: number): Promise<void> {
      await db('api_keys').where({ id }).where('last_used_at', '<', now - everyMs).update({ last_used_at: now })
    }
  }
}
export type ApiKeysRepository = ReturnType<typeof apiKeysRepository>
