import type { Knex } from 'knex'
import { lockForWrite } from '../../lib/bulk.js'

export interface UploadRow {
  id: string
  org_id: string
  store_env_id: string
  mime: string
  size: number
  path: string
  created_at: number
  /** When a review, gallery photo or the email branding first took it; null: nothing has (yet). */
  attached_at?: number | null
}

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

    /**
     * Marks the store's uploads among `ids` as used, holding them until the caller's transaction ends (so the sweep of
     * abandoned uploads cannot take them meanwhile); answers the ids found, which lack any the sweep already took.
     */
    async attach (trx: Knex.Transaction, storeId: string, ids: string[], at: number): Promise<Set<string>> {
      if (!ids.length) return new Set()
      const rows: Array<{ id: string }> = await lockForWrite(trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids), true).select('id')
      await trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids).whereNull('attached_at').update({ attached_at: at })
      return new Set(rows.map((row) => row.id))
    },

    /** Uploads nothing took that were made before `before` (of one store, or any), oldest first: the sweep's candidates. */
    abandoned (before: number, limit: number, storeId?: string): Promise<Array<Pick<UploadRow, 'id' | 'store_env_id'>>> {
      const query = db<UploadRow>('uploads').whereNull('attached_at').where('created_at', '<', before)
      if (storeId) query.where({ store_env_id: storeId })
      return query.orderBy('created_at').limit(limit).select('id', 'store_env_id')
    },

    /** Deletes those of `ids` that nothing has taken meanwhile, answering their files' keys (see removeRows). */
    async removeAbandoned (trx: Knex.Transaction, ids: string[]): Promise<string[]> {
      if (!ids.length) return []
      const rows: Array<{ id: string, path: string }> = await lockForWrite(trx('uploads').whereIn('id', ids).whereNull('attached_at'), true).select('id', 'path')
      if (rows.length) await trx('uploads').whereIn('id', rows.map((row) => row.id)).whereNull('attached_at').delete()
      return rows.map((row) => row.path)
    },

    /** Video upload URLs that expired before `before` (of one store, or any): a PUT to one is refused the same way. */
    async removeExpiredUrls (before: number, storeId?: string): Promise<number> {
      const query = db('upload_urls').where('expires_at', '<', before)
      if (storeId) query.where({ store_env_id: storeId })
      return query.delete()
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
