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

/** The upload ids a review's media JSON names (items `{ id, type, url, mime }`); none when it is not that. */
function mediaOf (json: string): string[] {
  let media: unknown
  try { media = JSON.parse(json) } catch { return [] }
  if (!Array.isArray(media)) return []
  return media.map((item) => (item as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === 'string')
}

export function uploadsRepository (db: Knex) {
  const repo = {
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
     * Marks the store's uploads among `ids` as used by `usedBy` (`review:<id>`, `photo:<id>`, `branding`), holding them
     * until the caller's transaction ends (so the sweep of abandoned uploads, or the release of another use, cannot
     * take them meanwhile); answers the ids found, which lack any that went before.
     */
    async attach (trx: Knex.Transaction, storeId: string, ids: string[], at: number, usedBy: string): Promise<Set<string>> {
      if (!ids.length) return new Set()
      const rows: Array<{ id: string }> = await lockForWrite(trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids), true)
        .select('id')
      if (!rows.length) return new Set()
      await trx('uploads').where({ store_env_id: storeId }).whereIn('id', ids).whereNull('attached_at').update({ attached_at: at })
      await trx('upload_uses').insert(rows.map((row) => ({ store_env_id: storeId, used_by: usedBy, upload_id: row.id })))
        .onConflict(['store_env_id', 'used_by', 'upload_id']).ignore()
      return new Set(rows.map((row) => row.id))
    },

    /**
     * Ends the uses `usedBy` made of the store's uploads (but those of `keep`) and deletes the rows of those nothing
     * else uses, answering their files' keys (see removeRows). The uploads are held first, as attach holds them, so a
     * use being added meanwhile either commits first and keeps its upload, or waits and finds it gone.
     */
    async release (trx: Knex.Transaction, storeId: string, usedBy: string[], keep: string[] = []): Promise<string[]> {
      if (!usedBy.length) return []
      const ended = () => {
        const query = trx('upload_uses').where({ store_env_id: storeId }).whereIn('used_by', usedBy)
        return keep.length ? query.whereNotIn('upload_id', keep) : query
      }
      const uses: Array<{ upload_id: string }> = await ended().select('upload_id')
      const ids = [...new Set(uses.map((use) => use.upload_id))].sort()
      if (!ids.length) return []
      await lockForWrite(trx('uploads').whereIn('id', ids).orderBy('id'), true).select('id')
      await ended().delete()
      const others: Array<{ upload_id: string }> = await lockForWrite(trx('upload_uses').whereIn('upload_id', ids), true).select(
        'upload_id'
      )
      const stillUsed = new Set(others.map((use) => use.upload_id))
      return repo.removeRows(trx, storeId, ids.filter((id) => !stillUsed.has(id)))
    },

    /**
     * Records the uses a store's rows make of its uploads (review media, gallery photos, the branding's logo), as
     * attach would have: for rows written without it (a restored backup).
     */
    async recordUses (trx: Knex, storeId: string): Promise<void> {
      const uses: Array<{ store_env_id: string, used_by: string, upload_id: string }> = []
      const reviews: Array<{ id: string, media: string }> = await trx('reviews').where({ store_env_id: storeId }).whereNot('media', '[]')
        .select('id', 'media')
      for (const review of reviews) {
        for (const item of mediaOf(review.media)) uses.push({ store_env_id: storeId, used_by: `review:${review.id}`, upload_id: item })
      }
      const photos: Array<{ id: string, upload_id: string }> = await trx('gallery_photos').where({ store_env_id: storeId }).select(
        'id',
        'upload_id'
      )
      for (const photo of photos) uses.push({ store_env_id: storeId, used_by: `photo:${photo.id}`, upload_id: photo.upload_id })
      const logo: { logo_upload_id: string | null } | undefined = await trx('email_branding').where({ store_env_id: storeId }).first(
        'logo_upload_id'
      )
      if (logo?.logo_upload_id) uses.push({ store_env_id: storeId, used_by: 'branding', upload_id: logo.logo_upload_id })
      const known = new Set<string>(await trx('uploads').where({ store_env_id: storeId }).pluck('id'))
      const kept = uses.filter((use) => known.has(use.upload_id))
      for (let i = 0; i < kept.length; i += 500) {
        await trx('upload_uses').insert(kept.slice(i, i + 500)).onConflict(['store_env_id', 'used_by', 'upload_id']).ignore()
      }
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
      const rows: Array<{ id: string, path: string }> = await lockForWrite(trx('uploads').whereIn('id', ids).whereNull('attached_at'), true)
        .select('id', 'path')
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
  return repo
}
export type UploadsRepository = ReturnType<typeof uploadsRepository>
