import type { Knex } from 'knex'
import type { Clock } from '../../lib/clock.js'
import type { BlobStorage } from './storage.js'
import type { UploadsRepository } from './uploads.repository.js'

/**
 * How long an upload may wait for the review, gallery photo or branding that takes it. A visitor fills in the review
 * form within minutes of uploading; a day leaves room for a form left open overnight.
 */
export const ABANDONED_AFTER_MS = 24 * 60 * 60_000

const BATCH = 200
/** Batches per pass: a backlog larger than this is taken over the next passes. */
const MAX_BATCHES = 50

interface Deps { db: Knex, repo: UploadsRepository, storage: BlobStorage, clock: Clock, warn: (obj: object, msg: string) => void }

/**
 * Deletes the uploads nothing took within ABANDONED_AFTER_MS, rows first, then their files once the rows' deletion
 * has committed. A review or photo taking one at the same moment holds it (uploads.repository.ts, attach), so either
 * the upload is taken and stays, or it is gone and the review is refused: never a review naming a deleted file.
 * Several instances may run it at once: the second finds the rows gone. Video upload URLs expired a day ago go
 * too. Answers how many uploads it deleted.
 */
export function abandonedUploads ({ db, repo, storage, clock, warn }: Deps) {
  /** Every store's, or one store's with `storeId`. */
  return async function sweep (storeId?: string): Promise<number> {
    let removed = 0
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const candidates = await repo.abandoned(clock() - ABANDONED_AFTER_MS, BATCH, storeId)
      if (!candidates.length) break
      const files = await db.transaction((trx) => repo.removeAbandoned(trx, candidates.map((row) => row.id)))
      const failed = (await Promise.allSettled(files.map((file) => storage.remove(file)))).filter((r) => r.status === 'rejected')
      if (failed.length) {
        warn(
          { count: failed.length, err: { message: String((failed[0] as PromiseRejectedResult).reason) } },
          'removing abandoned upload files failed'
        )
      }
      removed += files.length
      if (candidates.length < BATCH) break
    }
    // The grants of video uploads, used or not, are of no use once expired; a day on, they go too.
    await repo.removeExpiredUrls(clock() - ABANDONED_AFTER_MS, storeId)
    return removed
  }
}
