import { createHash } from 'node:crypto'
import { errors } from '../../errors.js'
import { uploadKey, type BlobStorage } from '../uploads/index.js'
import type { FileEnd, Line, Manifest } from './backup-file.js'

/**
 * Bytes per file part (docs/backups.md): 64 KiB of base64 per line, so a 100 MB video is ~1,600 short lines and
 * neither side ever holds more than one part of it in memory.
 */
export const CHUNK_BYTES = 48 * 1024

type Write = (line: Line) => Promise<void>

/** `source` cut into pieces of exactly CHUNK_BYTES (the last one shorter), whatever sizes the storage reads in. */
async function * pieces (source: AsyncIterable<Buffer>) {
  let carry: Buffer = Buffer.alloc(0)
  for await (const buffer of source) {
    carry = carry.length ? Buffer.concat([carry, buffer]) : buffer
    while (carry.length >= CHUNK_BYTES) {
      yield carry.subarray(0, CHUNK_BYTES)
      carry = carry.subarray(CHUNK_BYTES)
    }
  }
  if (carry.length) yield carry
}

export const emptyManifest = (): Manifest => ({ count: 0, bytes: 0, missing: [] })

/**
 * Writes an upload's row followed by its file's parts and end line; a file not in storage (or a row whose key is not
 * under the store's own folder, which the backup never reads) goes in `manifest.missing` and the row is left out.
 * Returns whether the row was written.
 */
export async function exportUpload (
  storage: BlobStorage,
  storeId: string,
  row: Record<string, unknown>,
  exported: Record<string, unknown>,
  write: Write,
  manifest: Manifest
): Promise<boolean> {
  const id = String(row.id)
  const key = String(row.path)
  const own = key.startsWith(`uploads/${storeId}/`) && !key.split('/').includes('..')
  const source = own ? await storage.open(key) : null
  if (!source) {
    manifest.missing.push({ id, reason: own ? 'The file is not in storage' : 'The file is stored outside the store\'s folder' })
    return false
  }
  await write({ table: 'uploads', row: exported })
  const hash = createHash('sha256')
  let size = 0
  let part = 0
  for await (const piece of pieces(source)) {
    hash.update(piece)
    size += piece.length
    await write({ file: id, part: part++, data: piece.toString('base64') })
  }
  await write({ file: id, end: true, parts: part, size, sha256: hash.digest('hex') })
  manifest.count++
  manifest.bytes += size
  return true
}

/**
 * The bytes of upload `id`'s file from the lines after its row, checked as they come: a part out of order, a line
 * that is not this file's, or bytes that do not add up to the end line's size and SHA-256 (and the row's size) throw
 * 409, which makes the storage write leave nothing and the restore roll back.
 */
async function * fileBytes (lines: AsyncIterator<Line>, id: string, rowSize: number) {
  const hash = createHash('sha256')
  let size = 0
  for (let part = 0; ; part++) {
    const next = await lines.next()
    const line = next.done ? null : next.value
    if (!line || !('file' in line) || line.file !== id) {
      throw new errors.Conflict(`The backup is incomplete: the file of upload ${id} is cut short; nothing was restored`)
    }
    if ('end' in line) {
      if (!matches(line, part, size, hash.digest('hex'), rowSize)) {
        throw new errors.Conflict(
          `The file of upload ${id} in the backup does not match its size and SHA-256 (the backup is damaged); nothing was restored`
        )
      }
      return
    }
    if (line.part !== part || typeof line.data !== 'string') {
      throw new errors.Conflict(
        `The file of upload ${id} in the backup has its parts out of order (the backup is damaged); nothing was restored`
      )
    }
    const bytes = Buffer.from(line.data, 'base64')
    hash.update(bytes)
    size += bytes.length
    yield bytes
  }
}

const matches = (end: FileEnd, parts: number, size: number, sha256: string, rowSize: number) =>
  end.parts === parts && end.size === size && end.sha256 === sha256 && rowSize === size

/**
 * Writes the file following an upload's row into the target's storage under the key of the row's new id (never a
 * key from the backup, so a restore cannot reach another store's files), recording the key in `written` first so
 * the caller can remove it when the restore fails later. Returns the key for the row's `path`.
 */
export async function restoreUpload (
  storage: BlobStorage,
  lines: AsyncIterator<Line>,
  oldId: string,
  row: Record<string, unknown>,
  written: string[]
): Promise<string> {
  const key = uploadKey(String(row.store_env_id), String(row.id), String(row.mime))
  written.push(key)
  await storage.write(key, fileBytes(lines, oldId, Number(row.size)))
  return key
}
