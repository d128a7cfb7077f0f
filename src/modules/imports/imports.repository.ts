import type { Knex } from 'knex'

export interface ImportRow {
  id: string,
  org_id: string,
  store_env_id: string,
  type: 'reviews',
  status: 'completed',
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
    }
  }
}
export type ImportsRepository = ReturnType<typeof importsRepository>
