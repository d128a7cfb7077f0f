import { createWriteStream } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'

/**
 * Where uploaded files live, by a relative key (`uploads/<store>/<id>.<ext>`). Local disk under DATA_DIR by default;
 * an S3-compatible store implements the same three calls (several instances then need no shared volume).
 */
export interface BlobStorage {
  /** Writes the whole source under `key`; a source that fails midway leaves nothing behind. */
  write: (key: string, source: Buffer | AsyncIterable<Buffer>) => Promise<void>
  read: (key: string) => Promise<Buffer>
  remove: (key: string) => Promise<void>
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
    remove: (key) => rm(join(dataDir, key), { force: true })
  }
}
