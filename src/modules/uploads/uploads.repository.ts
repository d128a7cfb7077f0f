import type { Knex } from 'knex'

export interface UploadRow { id: string, org_id: string, store_env_id: string, mime: string, size: number, path: string, created_at: number }

export function uploadsRepository (db: Knex) {
  return {
    async insert (row: UploadRow, trx: Knex = db) {
      await trx('uploads').insert(row)
    },

    /** The rows only: the files stay in storage (a file removed before the caller's commit could not come back). */
    async removeRows (trx: Knex, storeId: string, ids: string[]) {
      if (ids.length) await trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids).delete()
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
