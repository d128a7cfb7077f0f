import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
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

interface UrlRow {
  id: string
  org_id: string
  store_env_id: string
  token_hash: string
  content_type: string
  max_size: number
  expires_at: number
  used_at: number | null
  created_at: number
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A review video finished uploading, in its transaction: GET /analytics/storefront counts it. */
    'video.uploaded': { payload: { engagement: { storeEnvId: string, kind: 'video_upload', at: number } } }
  }
}

interface Deps { db: Knex, uploads: UploadsRepository, storage: BlobStorage, clock: Clock, publicUrl: string, bus: DomainBus }

/**
 * The head of `body` (its first HEAD_BYTES, or all of a shorter body) and what it is by content: a file that is not
 * MP4, WebM or QuickTime, or not the `declared` type the URL was issued for, is 415 whatever its Content-Type; an
 * empty one is 400. `rest` reads on from the end of the head. The size is checked by videoBytes.
 */
async function videoHead (body: AsyncIterable<Buffer>, declared: string) {
  const rest = body[Symbol.asyncIterator]()
  try {
    const chunks: Buffer[] = []
    let size = 0
    while (size < HEAD_BYTES) {
      const next = await rest.next()
      if (next.done) break
      size += next.value.length
      chunks.push(next.value)
    }
    if (size === 0) throw new errors.InvalidRequest('The upload is empty')
    const head = Buffer.concat(chunks)
    const type = await sniff(head)
    if (!type || !(VIDEO_TYPES as readonly string[]).includes(type.mime)) {
      throw new errors.UnsupportedMediaType('The file is not an MP4, WebM or QuickTime video')
    }
    if (type.mime !== declared) {
      throw new errors.UnsupportedMediaType(
        `The file is ${type.mime}, not the ${declared} this upload URL was issued for; ask for a URL with contentType ${type.mime}`
      )
    }
    return { head, mime: type.mime, rest }
  } catch (err) {
    // As a `for await` that throws would: the rest of the body is not read.
    await rest.return?.()
    throw err
  }
}

/** The head, then the rest of the body, refusing once the whole is past `max` (413). */
async function * videoBytes (head: Buffer, rest: AsyncIterator<Buffer>, max: number) {
  let ended = false
  try {
    let size = head.length
    if (size > max) throw new errors.PayloadTooLarge()
    yield head
    for (;;) {
      const next = await rest.next()
      if (next.done) break
      size += next.value.length
      if (size > max) throw new errors.PayloadTooLarge()
      yield next.value
    }
    ended = true
  } finally {
    // As a `for await` left early would: the rest of the body is not read.
    if (!ended) await rest.return?.()
  }
}

/**
 * Review videos (docs/contract/storefront.md#uploads): a signed single-use PUT URL on this service, valid 15 minutes;
 * the bytes go to `storage` as they arrive (never whole in memory) and become an upload the review names in mediaIds.
 */
export function videosService ({ db, uploads, storage, clock, publicUrl, bus }: Deps) {
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
      return {
        videoId: row.id,
        uploadUrl: `${publicUrl}/v1/uploads/videos/${row.id}?token=${token}&store=${encodeURIComponent(store.id)}`,
        expiresAt: iso(row.expires_at)!
      }
    },

    /**
     * Checks the URL (410 when it is unknown, used or expired), reads the head of the body and checks its type: an
     * empty body (400), a file that is no video or not of the type the URL was issued for (415) is refused with the
     * URL left unused, to send the right file to. Then claims the URL (one use, even for two requests at once) and
     * stores the video; a file refused from there on (413 larger than the size asked for) leaves the URL used: the
     * form asks for a new one, as it would after any failed upload.
     */
    async receive (store: StoreEnv, id: string, token: string, body: AsyncIterable<Buffer>) {
      const now = clock()
      const valid = { store_env_id: store.id, id, token_hash: sha256(token) }
      const url = await db<UrlRow>('upload_urls').where(valid).whereNull('used_at').where('expires_at', '>', now).first()
      if (!url) throw new errors.UploadUrlExpired()
      const max = Number(url.max_size)
      const { head, mime, rest } = await videoHead(body, url.content_type)
      const claimed = await db('upload_urls').where(valid).whereNull('used_at').where('expires_at', '>', now).update({ used_at: now })
      if (claimed !== 1) {
        await rest.return?.()
        throw new errors.UploadUrlExpired()
      }
      let size = 0
      // No extension (uploadKey): the type is the one found in the bytes, kept with the row and served as Content-Type.
      const path = uploadKey(store.id, id, 'video')
      const counted = async function * () {
        for await (const chunk of videoBytes(head, rest, max)) {
          size += chunk.length
          yield chunk
        }
      }
      await storage.write(path, counted())
      await db.transaction(async (trx) => {
        await uploads.insert({ id, org_id: store.orgId, store_env_id: store.id, mime, size, path, created_at: now }, trx)
        await bus.emit('video.uploaded', trx, { engagement: { storeEnvId: store.id, kind: 'video_upload', at: now } })
      })
      return { videoId: id, mime, size }
    }
  }
}
export type VideosService = ReturnType<typeof videosService>
