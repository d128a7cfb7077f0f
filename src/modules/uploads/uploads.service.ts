import { mkdir, writeFile, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileTypeFromBuffer } from 'file-type'
import { errors } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import type { Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { UploadsRepository } from './uploads.repository.js'

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024
const IMAGE_TYPES = new Map([['image/jpeg', 'jpg'], ['image/png', 'png'], ['image/webp', 'webp'], ['image/gif', 'gif']])

interface Deps { repo: UploadsRepository, dataDir: string, publicUrl: string, clock: Clock }

/**
 * decisions.md section 7. The type is decided by the bytes, never by the file name or the declared type. Files live
 * under `<DATA_DIR>/uploads/<store>/`; several instances need DATA_DIR on a shared volume.
 */
export function uploadsService ({ repo, dataDir, publicUrl, clock }: Deps) {
  const urlOf = (id: string) => `${publicUrl}/v1/uploads/${id}`
  return {
    urlOf,

    async storeImage (store: StoreEnv, bytes: Buffer) {
      const detected = await fileTypeFromBuffer(bytes)
      const ext = detected && IMAGE_TYPES.get(detected.mime)
      if (!detected || !ext) throw new errors.UnsupportedMediaType('The file is not a JPEG, PNG, WebP or GIF image')
      const id = newId('upl')
      const relative = join('uploads', store.id, `${id}.${ext}`)
      await mkdir(join(dataDir, 'uploads', store.id), { recursive: true })
      await writeFile(join(dataDir, relative), bytes, { mode: 0o640 })
      await repo.insert({ id, org_id: store.orgId, store_env_id: store.id, mime: detected.mime, size: bytes.length, path: relative, created_at: clock() })
      return { id, url: urlOf(id) }
    },

    async read (id: string) {
      const row = await repo.findById(id)
      if (!row) throw new errors.NotFound('Upload')
      return { mime: row.mime, bytes: await readFile(join(dataDir, row.path)) }
    },

    /** The uploads of this store among `ids`, as review media; an id of another store or unknown is refused. */
    async media (storeId: string, ids: string[]) {
      const unique = [...new Set(ids)]
      const rows = await repo.findMany(storeId, unique)
      if (rows.length !== unique.length) throw new errors.InvalidRequest('mediaIds names an upload this store does not have')
      const byId = new Map(rows.map((row) => [row.id, row]))
      return unique.map((id) => ({ id, type: 'image' as const, url: urlOf(id), mime: byId.get(id)!.mime }))
    }
  }
}
export type UploadsService = ReturnType<typeof uploadsService>
