import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { isDuplicateKey } from '../../db.js'
import { newId } from '../../lib/ids.js'
import { decrypt } from '../../lib/secrets.js'
import type { StoreEnv } from '../../types.js'
import { rebuildStore } from '../analytics/index.js'
import { type BlobStorage, uploadsRepository } from '../uploads/index.js'
import { FORMAT, readBackup, VERSION, type Header, type Line } from './backup-file.js'
import { restoreUpload } from './backup-uploads.js'
import { EXPORTED_TABLES, refsOf, STORE, TENANT_COLUMNS, type ExportedTable, type Ref } from './tables.js'

const SPECS = new Map(EXPORTED_TABLES.map((spec) => [spec.table, spec]))
/** Rows per insert: SQLite caps the bound variables of one statement. */
const CHUNK = 40
/** A row that cannot be written (it refers to a row the backup does not hold). */
const SKIP = Symbol('skip')

/** Old id -> new id, per table (and STORE: the source store -> the target). */
type IdMaps = Map<string, Map<unknown, string>>

/** Refuses a target holding any exported data: a restore never merges into a live store. */
async function assertEmpty (trx: Knex, storeId: string) {
  for (const { table } of EXPORTED_TABLES) {
    if (await trx(table).where({ store_env_id: storeId }).first(trx.raw('1 AS present'))) {
      throw new errors.Conflict(`The target store is not empty (it has ${table}); restore into a store without data`)
    }
  }
}

/** The new id of `table`'s row `old`, made now when that row comes later in the file (or is in none). */
function freshId (ids: IdMaps, table: string, old: unknown): string {
  const map = ids.get(table)!
  let id = map.get(old)
  if (id === undefined) {
    id = newId(Object.values(SPECS.get(table)!.newIds!)[0])
    map.set(old, id)
  }
  return id
}

/** The value `ref` gives a column holding `old`: the new id, or what `missing` says when the row is not in the backup. */
function follow (ref: Ref, old: unknown, ids: IdMaps): unknown {
  const mapped = ids.get(ref.table)?.get(old)
  if (mapped !== undefined) return mapped
  switch (ref.missing ?? 'skip') {
    case 'null': return null
    case 'keep': return old
    case 'fresh': return freshId(ids, ref.table, old)
    default: return SKIP
  }
}

/** A JSON column with the ids `ref` describes followed; ids not in the backup are left out of it. */
function followJson (ref: Ref, text: string, ids: IdMaps): string | null {
  const known = (id: unknown) => ids.get(ref.table)?.get(id)
  const doc = JSON.parse(text) as unknown
  if (ref.json === '[].id') return JSON.stringify((doc as Array<Record<string, unknown>>).flatMap((item) => followItem(item, known)))
  if (ref.json === '[]') {
    const list = (doc as unknown[]).map(known).filter((id): id is string => id !== undefined).sort()
    return list.length ? JSON.stringify(list) : null
  }
  const object = doc as Record<string, unknown>
  const key = ref.json!
  if (object[key] === undefined) return text
  const id = known(object[key])
  if (id === undefined) delete object[key]
  else object[key] = id
  return JSON.stringify(object)
}

/**
 * An object of a JSON list naming a row by `id` (a review's media), with that id followed wherever the object's
 * strings hold it (its URL); left out when the row is not in the backup.
 */
function followItem (item: Record<string, unknown>, known: (id: unknown) => string | undefined): Array<Record<string, unknown>> {
  const old = item.id
  const id = known(old)
  if (typeof old !== 'string' || id === undefined) return []
  return [
    Object.fromEntries(Object.entries(item).map(([key, value]) => [key, typeof value === 'string' ? value.split(old).join(id) : value]))
  ]
}

/** The row as the target's: its tenant ids, fresh ids where ids are global, references following them; SKIP if it cannot be. */
function adopt (
  spec: ExportedTable,
  row: Record<string, unknown>,
  target: StoreEnv,
  ids: IdMaps,
  kept: Set<string>
): Record<string, unknown> | typeof SKIP {
  const tenant: Record<string, string> = { store_env_id: target.id, org_id: target.orgId }
  const out: Record<string, unknown> = { ...row }
  for (const column of spec.tenantColumns ?? TENANT_COLUMNS) out[column] = tenant[column]
  for (const column of Object.keys(spec.newIds ?? {})) out[column] = freshId(ids, spec.table, row[column])
  for (const [column, value] of Object.entries(spec.refs ?? {})) {
    const ref = refsOf(value).find((r) => Object.entries(r.when ?? {}).every(([k, v]) => row[k] === v))
    if (!ref || row[column] == null || kept.has(ref.table)) continue
    const followed = ref.json ? followJson(ref, String(row[column]), ids) : follow(ref, row[column], ids)
    if (followed === SKIP) return SKIP
    out[column] = followed
  }
  return out
}

/**
 * The row with its sealed columns opened (tables.ts `sealed`); a backup before version 4 holds them plain. A value
 * sealed with another deployment's key cannot be read here, and the restore stops rather than lose it.
 */
function opened (spec: ExportedTable, row: Record<string, unknown>, secretKey: string): Record<string, unknown> {
  if (!spec.sealed) return row
  const out = { ...row }
  for (const column of spec.sealed) {
    const value = out[column] as { sealed?: unknown } | null | undefined
    if (value === null || typeof value !== 'object') continue
    if (typeof value.sealed !== 'string') {
      throw new errors.Conflict(
        `The backup is damaged: a ${spec.table} row's ${column} is neither a value nor a sealed one; nothing was restored`
      )
    }
    try {
      out[column] = decrypt(value.sealed, secretKey)
    } catch {
      throw new errors.Conflict(
        `The backup's ${spec.table} hold values sealed by another deployment (another SECRET_KEY); nothing was restored`
      )
    }
  }
  return out
}

/** Where a restore writes the files of a version 3 backup, and the keys it wrote (for the caller to remove on failure). */
export interface RestoreFiles { storage: BlobStorage, written: string[] }

/** The header, checked: a format this reader knows, a version it reads. */
function headerOf (line: Line | undefined): Header {
  const header = line as Header | undefined
  if (header?.format !== FORMAT || !(header.version <= VERSION)) {
    throw new errors.Conflict('The file is not a backup this version can restore')
  }
  return header
}

/**
 * Writes a backup file's rows into `target` inside `trx` (the caller's transaction, which holds the target's row
 * locked, so a failure leaves the target as it was and restores into it take turns), and the files that follow
 * upload rows into `files.storage`, then rebuilds the aggregates derived from the rows. Returns the rows written per
 * table.
 */
export async function restoreRows (
  trx: Knex,
  path: string,
  target: StoreEnv,
  files: RestoreFiles,
  secretKey: string
): Promise<Record<string, number>> {
  await assertEmpty(trx, target.id)
  const ids: IdMaps = new Map(EXPORTED_TABLES.map((spec) => [spec.table, new Map<unknown, string>()]))
  const counts: Record<string, number> = {}
  let pending: { table: string, rows: Array<Record<string, unknown>> } = { table: '', rows: [] }
  const flush = async () => {
    try {
      for (let i = 0; i < pending.rows.length; i += CHUNK) await trx(pending.table).insert(pending.rows.slice(i, i + CHUNK))
    } catch (err) {
      // The target was empty and its rows take fresh ids: a key met twice comes from the file (an export that held a
      // row twice, or a file edited by hand), and the transaction this throws out of writes nothing.
      if (isDuplicateKey(err)) {
        throw new errors.Conflict(
          `The backup is damaged: it holds ${pending.table} rows with the same key (a row twice); nothing was restored`
        )
      }
      throw err
    }
    pending.rows = []
  }
  const lines = readBackup(path)
  try {
    const header = headerOf((await lines.next()).value as Line | undefined)
    ids.set(STORE, new Map([[header.storeEnvId, target.id]]))
    // Before version 3 a backup holds no files: its rows keep naming the source's uploads, which keep serving.
    const kept = new Set(header.version < 3 ? ['uploads'] : [])
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      const line = next.value
      if ('file' in line) {
        throw new errors.Conflict(`The backup is damaged: a part of upload ${line.file}'s file without its row; nothing was restored`)
      }
      if ('end' in line) break
      if (!('table' in line)) continue
      const spec = SPECS.get(line.table)
      if (!spec) continue
      if (pending.table !== spec.table) {
        await flush()
        pending = { table: spec.table, rows: [] }
      }
      const row = adopt(spec, opened(spec, line.row, secretKey), target, ids, kept)
      if (row === SKIP) continue
      if (spec.table === 'uploads') {
        row.path = await restoreUpload(files.storage, lines, String(line.row.id), row, files.written)
        // Backups made before uploads were marked as used have no mark: restored, they count as used, not abandoned.
        row.attached_at ??= row.created_at
      }
      pending.rows.push(row)
      counts[spec.table] = (counts[spec.table] ?? 0) + 1
      if (pending.rows.length >= CHUNK * 25) await flush()
    }
  } finally {
    await lines.return(undefined)
  }
  await flush()
  await rebuildStore(trx, target.id)
  await uploadsRepository(trx).recordUses(trx, target.id)
  return Object.fromEntries(EXPORTED_TABLES.map(({ table }) => [table, counts[table] ?? 0]))
}
