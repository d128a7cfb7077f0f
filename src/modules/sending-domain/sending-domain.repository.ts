import type { Knex } from 'knex'

export interface SendingDomainRow {
  org_id: string
  store_env_id: string
  domain: string
  selector: string
  /** Sealed with SECRET_KEY (lib/secrets.ts `encrypt`). */
  dkim_private_key: string
  /** Base64 of the DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  dkim_public_key: string
  /** JSON: the status of each record at the last check. */
  checks: string | null
  verified_at: number | null
  checked_at: number | null
  created_at: number
  updated_at: number
}

export function sendingDomainRepository (db: Knex) {
  return {
    find (storeId: string, trx: Knex = db): Promise<SendingDomainRow | undefined> {
      return trx<SendingDomainRow>('sending_domains').where({ store_env_id: storeId }).first()
    },

    async put (row: SendingDomainRow, trx: Knex = db) {
      await trx('sending_domains').insert(row).onConflict('store_env_id').merge()
    },

    async recordCheck (storeId: string, checks: string, verifiedAt: number | null, now: number, trx: Knex = db) {
      await trx('sending_domains').where({ store_env_id: storeId }).update({
        checks,
        verified_at: verifiedAt,
        checked_at: now,
        updated_at: now
      })
    }
  }
}
export type SendingDomainRepository = ReturnType<typeof sendingDomainRepository>
