import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'

export interface ImportRow {
  id: string,
  org_id: string,
  store_env_id: string,
  type: 'reviews',
  status: 'completed' | 'partial' | 'failed',
  received: number,
  imported: number,
  failed: number,
  errors: string,
  created_at: number,
  completed_at: number | null
}

export function importsRepository (db: Knex) {
  return {
    async insert (row: ImportRow, trx: Knex) {
      await trx('imports').insert(row)
    },

    find (storeId: string, id: string): Promise<ImportRow | undefined> {
      return db<ImportRow>('imports').where({ store_env_id: storeId, id }).first()
    },

    /** Newest first; `since`: created at or after (an import never changes once completed). */
    list (storeId: string, since: number | null, page: { offset: number, limit: number }) {
      const base = db<ImportRow>('imports').where({ store_env_id: storeId })
      if (since !== null) base.where('created_at', '>=', since)
      return countAndPage<ImportRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
    }
  }
}
export type ImportsRepository = ReturnType<typeof importsRepository>
