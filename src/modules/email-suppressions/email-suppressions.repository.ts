import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'

export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const
export type SuppressionReason = typeof SUPPRESSION_REASONS[number]

export interface SuppressionRow {
  org_id: string
  store_env_id: string
  email: string
  reason: SuppressionReason
  created_at: number
  updated_at: number
}

/** Addresses are compared lower-cased and trimmed: `Ann@Example.test` and `ann@example.test` are one person. */
export function normalEmail (email: string): string {
  return email.trim().toLowerCase()
}

export function emailSuppressionsRepository (db: Knex) {
  return {
    find (storeId: string, email: string, trx: Knex = db): Promise<SuppressionRow | undefined> {
      return trx<SuppressionRow>('email_suppressions').where({ store_env_id: storeId, email: normalEmail(email) }).first()
    },

    async list (storeId: string, filter: { reason?: string, updatedSince?: number | null }, page: { offset: number, limit: number }) {
      const base = db<SuppressionRow>('email_suppressions').where({ store_env_id: storeId })
      if (filter.reason) base.where('reason', filter.reason)
      if (filter.updatedSince != null) base.where('updated_at', '>=', filter.updatedSince)
      return countAndPage<SuppressionRow>(base, page, (q) => q.orderBy('updated_at', 'desc').orderBy('email'))
    },

    /** Inserts or changes the reason; the row as stored now, and whether anything changed. */
    async upsert (trx: Knex, row: SuppressionRow): Promise<{ row: SuppressionRow, changed: boolean, created: boolean }> {
      const existing = await trx<SuppressionRow>('email_suppressions').where({ store_env_id: row.store_env_id, email: row.email }).first()
      if (existing?.reason === row.reason) return { row: existing, changed: false, created: false }
      if (existing) {
        await trx('email_suppressions').where({ store_env_id: row.store_env_id, email: row.email }).update({
          reason: row.reason,
          updated_at: row.updated_at
        })
        return { row: { ...existing, reason: row.reason, updated_at: row.updated_at }, changed: true, created: false }
      }
      // Two writers adding the same address at once: the second keeps the first's row (no duplicate-key 500).
      await trx('email_suppressions').insert(row).onConflict(['store_env_id', 'email']).merge(['reason', 'updated_at'])
      return { row, changed: true, created: true }
    },

    async remove (trx: Knex, storeId: string, email: string): Promise<SuppressionRow | undefined> {
      const row = await trx<SuppressionRow>('email_suppressions').where({ store_env_id: storeId, email: normalEmail(email) }).first()
      // Removed by a request at the same moment: that one counts, this one found nothing.
      if (!row || (await trx('email_suppressions').where({ store_env_id: storeId, email: row.email }).delete()) !== 1) return undefined
      return row
    }
  }
}
export type EmailSuppressionsRepository = ReturnType<typeof emailSuppressionsRepository>
