import type { Knex } from 'knex'
import { sniff } from './sniff.js'
import { errors } from '../../errors.js'
import { base62, newId } from '../../lib/ids.js'
import { sha256 } from '../../lib/secrets.js'
import { iso, type Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { UploadsRepository } from './uploads.repository.js'
import { uploadKey, type BlobStorage } from './storage.js'

export const MAX_VIDEO_BYTES = 100 * 1024 * 1024
export const UPLOAD_URL_TTL_MS = 15 * 60_000
export const VIDEO_TYPES = ['video/mp4', 'video/webm', 'video/quicktime'] as const
/** Enough of the head for file-type to tell the containers apart. */
const HEAD_BYTES = 4100

interface UrlRow { id: string, org_id: string, store_env_id: string, token_hash: string, content_type: string, max_size: number, expires_at: number, used_at: number | null, created_at: number }

/** Counts the upload in GET /analytics/storefront (the analytics module's `recordEngagement`, wired in src/services.ts). */
export type OnVideoUpload = (trx: Knex.Transaction, engagement: { storeEnvId: string, kind: 'video_upload', at: number }) => Promise<void>

interface Deps { db: Knex, uploads: UploadsRepository, storage: BlobStorage, clock: Clock, publicUrl: string, onEngagement?: OnVideoUpload }

/**
 * Bytes from `body`, refusing past `max` (413) and checking the head by content before anything is kept: a file
 * that is not MP4, WebM or QuickTime is 415 whatever its declared type.
 */
async function * checkedVideo (body: AsyncIterable<Buffer>, max: number, detected: (mime: string) => void) {
  let size = 0
  let head: Buffer | null = Buffer.alloc(0)
  const decide = async (bytes: Buffer) => {
    const type = await sniff(bytes)
    if (!type || !(VIDEO_TYPES as readonly string[]).includes(type.mime)) throw new errors.UnsupportedMediaType('The file is not an MP4, WebM or QuickTime video')
    detected(type.mime)
  }
  for await (const chunk of body) {
    size += chunk.length
    if (size > max) throw new errors.PayloadTooLarge()
    if (head === null) {
      yield chunk
      continue
    }
    head = Buffer.concat([head, chunk])
    if (head.length < HEAD_BYTES) continue
    await decide(head)
    yield head
    head = null
  }
  if (head !== null) {
    if (head.length === 0) throw new errors.InvalidRequest('The upload is empty')
    await decide(head)
    yield head
  }
}

/**
 * Review videos (decisions.md section 15): a signed single-use PUT URL on this service, valid 15 minutes; the
 * bytes go to `storage` as they arrive (never whole in memory) and become an upload the review names in mediaIds.
 */
export function videosService ({ db, uploads, storage, clock, publicUrl, onEngagement }: Deps) {
  return {
    async issueUrl (store: StoreEnv, input: { contentType: string, size: number }) {
      const token = base62(32)
      const now = clock()
      const row: UrlRow = {
        id: newId('vid'),
        org_id: store.orgId,
        store_env_id: store.id,
        token_hash: sha256(token),
        content_type: input.contentType,
        max_size: input.size,
        expires_at: now + UPLOAD_URL_TTL_MS,
        used_at: null,
        created_at: now
      }
      await db('upload_urls').insert(row)
      return { videoId: row.id, uploadUrl: `${publicUrl}/v1/uploads/videos/${row.id}?token=${token}`, expiresAt: iso(row.expires_at)! }
    },

    /**
     * Claims the URL first (one use, even for two requests at once), then stores the video. A refused file leaves
     * the URL used: the form asks for a new one, as it would after any failed upload.
     */
    async receive (store: StoreEnv, id: string, token: string, body: AsyncIterable<Buffer>) {
      const now = clock()
      const claimed = await db('upload_urls')
        .where({ store_env_id: store.id, id, token_hash: sha256(token) })
        .whereNull('used_at').where('expires_at', '>', now)
        .update({ used_at: now })
      if (claimed !== 1) throw new errors.UploadUrlExpired()
      const url = await db<UrlRow>('upload_urls').where({ id }).first() as UrlRow
      let mime = ''
      let size = 0
      // No extension (uploadKey): the type is the one found in the bytes, kept with the row and served as Content-Type.
      const path = uploadKey(store.id, id, 'video')
      const counted = async function * () {
        for await (const chunk of checkedVideo(body, Number(url.max_size), (found) => { mime = found })) {
          size += chunk.length
          yield chunk
        }
      }
      await storage.write(path, counted())
      await db.transaction(async (trx) => {
        await uploads.insert({ id, org_id: store.orgId, store_env_id: store.id, mime, size, path, created_at: now }, trx)
        await onEngagement?.(trx, { storeEnvId: store.id, kind: 'video_upload', at: now })
      })
      return { videoId: id, mime, size }
    }
  }
}
export type VideosService = ReturnType<typeof videosService>
