import { createReadStream, createWriteStream } from 'node:fs'
import { rename } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { createGunzip, createGzip } from 'node:zlib'
import { once } from 'node:events'
import { pipeline } from 'node:stream/promises'
import { createInterface } from 'node:readline'

/** docs/backups.md: the first line of every backup file. */
export const FORMAT = 'evidence-hub-backup'
/** 2: customers, loyalty, incentives, affiliates, email settings and content joined the tables (a version 1 reader would leave them out). */
export const VERSION = 2

export interface Header { format: typeof FORMAT, version: number, backupId: string, storeEnvId: string, orgId: string, createdAt: string, tables: string[] }
export type Line = Header | { table: string, row: Record<string, unknown> } | { end: true, counts: Record<string, number> }

/** Writes NDJSON lines gzipped to `path` (through a temporary name, so a half-written file is never seen). */
export async function writeBackup (path: string, produce: (write: (line: Line) => Promise<void>) => Promise<void>) {
  const gzip = createGzip()
  const hash = createHash('sha256')
  let size = 0
  gzip.on('data', (chunk: Buffer) => { hash.update(chunk); size += chunk.length })
  const partial = `${path}.partial`
  const done = pipeline(gzip, createWriteStream(partial, { mode: 0o600 }))
  await produce(async (line) => {
    if (!gzip.write(`${JSON.stringify(line)}\n`)) await once(gzip, 'drain')
  })
  gzip.end()
  await done
  await rename(partial, path)
  return { size, checksum: hash.digest('hex') }
}

export async function checksumOf (path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The lines of a backup file in order. */
export async function * readBackup (path: string): AsyncGenerator<Line> {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity })
  for await (const text of lines) if (text) yield JSON.parse(text) as Line
}
