import type { Knex } from 'knex'
import { sniff } from './sniff.js'
import { errors } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import type { Clock } from '../../lib/clock.js'
import { afterCommit } from '../../lib/freshness.js'
import type { StoreEnv } from '../../types.js'
import type { UploadsRepository } from './uploads.repository.js'
import { IMAGE_EXTENSIONS, uploadKey, type BlobStorage } from './storage.js'

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024

interface Deps { repo: UploadsRepository, storage: BlobStorage, publicUrl: string, clock: Clock, warn?: (obj: object, msg: string) => void }

/**
 * docs/contract/storefront.md#uploads. The type is decided by the bytes, never by the file name or the declared type.
 * Files live in `storage` under `uploads/<store>/` (local disk: DATA_DIR, which several instances need on a shared
 * volume).
 */
/** A 400 naming the first of `ids` the store does not have (`found`: the ones it has). */
function refuseMissing (field: string, ids: string[], found: { has: (id: string) => boolean }) {
  const missing = ids.find((id) => !found.has(id))
  if (missing !== undefined) throw new errors.InvalidRequest(`${field} names an upload this store does not have: ${missing}`)
}

export function uploadsService ({ repo, storage, publicUrl, clock, warn = () => {} }: Deps) {
  const urlOf = (id: string) => `${publicUrl}/v1/uploads/${id}`
  return {
    urlOf,

    async storeImage (store: StoreEnv, bytes: Buffer) {
      const detected = await sniff(bytes)
      if (!detected || !IMAGE_EXTENSIONS.has(detected.mime)) {
        throw new errors.UnsupportedMediaType('The file is not a JPEG, PNG, WebP or GIF image')
      }
      const id = newId('upl')
      const relative = uploadKey(store.id, id, detected.mime)
      await storage.write(relative, bytes)
      await repo.insert({
        id,
        org_id: store.orgId,
        store_env_id: store.id,
        mime: detected.mime,
        size: bytes.length,
        path: relative,
        created_at: clock()
      })
      return { id, url: urlOf(id) }
    },

    async read (id: string) {
      const row = await repo.findById(id)
      if (!row) throw new errors.NotFound('Upload')
      return { mime: row.mime, bytes: await storage.read(row.path) }
    },

    /**
     * Marks uploads as used by what the caller's transaction writes (`usedBy`: `review:<id>`, `photo:<id>`,
     * `branding`), so the sweep of abandoned uploads leaves them and they stay while it uses them; `field` names the
     * input in the refusal when one is no longer there.
     */
    async attach (trx: Knex.Transaction, storeId: string, ids: string[], field: string, usedBy: string) {
      const unique = [...new Set(ids)]
      refuseMissing(field, unique, await repo.attach(trx, storeId, unique, clock(), usedBy))
    },

    /**
     * Ends the uses `usedBy` made (a review, photo or branding going or changing; `keep`: uploads it still uses). An
     * upload nothing uses any more goes: its row in the caller's transaction, its file once that has committed.
     */
    async release (trx: Knex.Transaction, storeId: string, usedBy: string[], keep: string[] = []) {
      const files = await repo.release(trx, storeId, usedBy, keep)
      if (!files.length) return
      afterCommit(trx, () => Promise.all(files.map((file) => storage.remove(file))).then(
        () => {},
        (err: Error) => warn({ err: { message: err.message }, storeId }, 'removing released upload files failed')
      ))
    },

    /** The uploads of this store among `ids`, as review media; an id of another store or unknown is refused. */
    async media (storeId: string, ids: string[]) {
      const unique = [...new Set(ids)]
      const rows = await repo.findMany(storeId, unique)
      const byId = new Map(rows.map((row) => [row.id, row]))
      refuseMissing('mediaIds', unique, byId)
      return unique.map((id) => {
        const mime = byId.get(id)!.mime
        return { id, type: mime.startsWith('video/') ? 'video' as const : 'image' as const, url: urlOf(id), mime }
      })
    }
  }
}
export type UploadsService = ReturnType<typeof uploadsService>
