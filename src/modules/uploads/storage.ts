import { createWriteStream } from 'node:fs'
import { mkdir, open, readFile, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'

/**
 * Where uploaded files live, by a relative key (`uploads/<store>/<id>.<ext>`). Local disk under DATA_DIR by default;
 * an S3-compatible store implements the same calls (several instances then need no shared volume).
 */
export interface BlobStorage {
  /** Writes the whole source under `key`; a source that fails midway leaves nothing behind. */
  write: (key: string, source: Buffer | AsyncIterable<Buffer>) => Promise<void>
  read: (key: string) => Promise<Buffer>
  /** The file's bytes as a stream (a backup reads 100 MB videos this way), or null when there is no file under `key`. */
  open: (key: string) => Promise<AsyncIterable<Buffer> | null>
  remove: (key: string) => Promise<void>
}

/** The image types an upload may have, and the extension their files keep. */
export const IMAGE_EXTENSIONS = new Map([['image/jpeg', 'jpg'], ['image/png', 'png'], ['image/webp', 'webp'], ['image/gif', 'gif']])

/** The key of an upload's file: images keep an extension, videos none (their type is kept with the row). */
export function uploadKey (storeId: string, id: string, mime: string) {
  const ext = IMAGE_EXTENSIONS.get(mime)
  return join('uploads', storeId, ext ? `${id}.${ext}` : id)
}

export function localDiskStorage (dataDir: string): BlobStorage {
  return {
    async write (key, source) {
      const path = join(dataDir, key)
      await mkdir(dirname(path), { recursive: true })
      try {
        await pipeline(Buffer.isBuffer(source) ? Readable.from([source]) : Readable.from(source), createWriteStream(path, { mode: 0o640 }))
      } catch (err) {
        await rm(path, { force: true })
        throw err
      }
    },
    read: (key) => readFile(join(dataDir, key)),
    async open (key) {
      try {
        return (await open(join(dataDir, key))).createReadStream()
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw err
      }
    },
    remove: (key) => rm(join(dataDir, key), { force: true })
  }
}
