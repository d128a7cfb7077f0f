import type { Knex } from 'knex'

export interface UploadRow { id: string, org_id: string, store_env_id: string, mime: string, size: number, path: string, created_at: number }

export function uploadsRepository (db: Knex) {
  return {
    async insert (row: UploadRow, trx: Knex = db) {
      await trx('uploads').insert(row)
    },

    /**
     * The rows only, answering their files' keys: the caller removes the files once its transaction has committed (a
     * file removed before could not come back if it rolled back).
     */
    async removeRows (trx: Knex, storeId: string, ids: string[]): Promise<string[]> {
      if (!ids.length) return []
      const rows: Array<{ path: string }> = await trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids).select('path')
      await trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids).delete()
      return rows.map((row) => row.path)
    },

    /** Unauthenticated reads by id: ids are 20 random base62 characters, unguessable. */
    findById (id: string): Promise<UploadRow | undefined> {
      return db<UploadRow>('uploads').where({ id }).first()
    },

    findMany (storeId: string, ids: string[]): Promise<UploadRow[]> {
      return ids.length ? db<UploadRow>('uploads').where({ store_env_id: storeId }).whereIn('id', ids) : Promise.resolve([])
    }
  }
}
export type UploadsRepository = ReturnType<typeof uploadsRepository>
