import { createReadStream, createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { createGunzip, createGzip } from 'node:zlib'
import { once } from 'node:events'
import { pipeline as pipelineAsync } from 'node:stream/promises'
import { pipeline } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { errors } from '../../errors.js'

/** docs/backups.md: the first line of every backup file. */
export const FORMAT = 'evidence-hub-backup'
/**
 * 2: customers, loyalty, incentives, affiliates, email settings and content joined the tables (a version 1 reader
 * would leave them out). 3: the uploaded files, each after its `uploads` row (backup-uploads.ts). 4: reviewers'
 * addresses sealed (tables.ts `sealed`).
 */
export const VERSION = 4

export interface Header {
  format: typeof FORMAT
  version: number
  backupId: string
  storeEnvId: string
  orgId: string
  createdAt: string
  tables: string[]
}
/** A piece of an upload's file: `data` is the base64 of at most CHUNK_BYTES bytes; `part` counts from 0. */
export interface FilePart { file: string, part: number, data: string }
/** After an upload's last part: what its bytes must add up to. */
export interface FileEnd { file: string, end: true, parts: number, size: number, sha256: string }
/** Files the backup could not hold (recorded, never a failed backup): their upload rows are left out. */
export interface Manifest { count: number, bytes: number, missing: Array<{ id: string, reason: string }> }
export interface Footer { end: true, counts: Record<string, number>, files?: Manifest }
export type Line = Header | { table: string, row: Record<string, unknown> } | FilePart | FileEnd | Footer

/**
 * Writes NDJSON lines gzipped to `path` (through a temporary name, so a half-written file is never seen; a failure
 * removes it). `level` is gzip's: the export's spool of rows (backups.service.ts) is written fast rather than small.
 */
export async function writeBackup (
  path: string,
  produce: (write: (line: Line) => Promise<void>) => Promise<void>,
  { level }: { level?: number } = {}
) {
  const gzip = createGzip({ level })
  const hash = createHash('sha256')
  let size = 0
  gzip.on('data', (chunk: Buffer) => {
    hash.update(chunk)
    size += chunk.length
  })
  const partial = `${path}.partial`
  const done = pipelineAsync(gzip, createWriteStream(partial, { mode: 0o600 }))
  // Awaited below; until then a failed disk write must not go unhandled (it also fails the write that waits on it).
  done.catch(() => {})
  try {
    await produce(async (line) => {
      // A disk write that failed ended the pipeline: its error, rather than a wait for a drain that never comes.
      if (gzip.destroyed) await done
      if (!gzip.write(`${JSON.stringify(line)}\n`)) await once(gzip, 'drain')
    })
    gzip.end()
    await done
    await rename(partial, path)
  } catch (err) {
    // Closes the file (a pipeline left waiting would hold it open) before removing it.
    gzip.destroy()
    await done.catch(() => {})
    await rm(partial, { force: true })
    throw err
  }
  return { size, checksum: hash.digest('hex') }
}

export async function checksumOf (path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The lines of a backup file in order; a file that is not gzipped NDJSON is 409 (a damaged backup, not our failure). */
export async function * readBackup (path: string): AsyncGenerator<Line> {
  // pipeline, not pipe: an error of either stream ends the iteration with it instead of going uncaught.
  const text = pipeline(createReadStream(path), createGunzip(), () => {})
  const decoder = new StringDecoder('utf8')
  let rest = ''
  try {
    for await (const chunk of text) {
      const lines = (rest + decoder.write(chunk as Buffer)).split('\n')
      rest = lines.pop()!
      for (const line of lines) if (line) yield parse(line)
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code?.startsWith('Z_')) {
      throw new errors.Conflict('The backup file is damaged: it is not a complete gzip stream')
    }
    throw err
  } finally {
    text.destroy()
  }
  rest += decoder.end()
  if (rest) yield parse(rest)
}

function parse (text: string): Line {
  let line: unknown
  try {
    line = JSON.parse(text)
  } catch {
    throw new errors.Conflict('The backup file is damaged: a line is not JSON')
  }
  if (typeof line !== 'object' || line === null || Array.isArray(line)) {
    throw new errors.Conflict('The backup file is damaged: a line is not a JSON object')
  }
  return line as Line
}
