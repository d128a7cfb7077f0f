import type { Knex } from 'knex'
import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { base62, newId } from '../../lib/ids.js'
import { clip } from '../../lib/text.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { StoreEnv, Log } from '../../types.js'
import type { AuditRepository } from '../audit/index.js'
import type { EventLog } from '../events/index.js'
import type { StoresRepository } from '../account/index.js'
import type { BackupRow, BackupsRepository } from './backups.repository.js'
import type { BlobStorage } from '../uploads/index.js'
import { checksumOf, FORMAT, readBackup, VERSION, writeBackup, type Header } from './backup-file.js'
import { emptyManifest, exportUpload } from './backup-uploads.js'
import { restoreRows } from './restore.js'
import { lockStore } from '../../lib/bulk.js'
import { EXPORTED_TABLES, TENANT_COLUMNS, type ExportedTable } from './tables.js'
import { encrypt } from '../../lib/secrets.js'
import { isMysql, sqliteReader } from '../../db.js'

interface Deps {
  db: Knex
  repo: BackupsRepository
  stores: StoresRepository
  events: EventLog
  audit: AuditRepository
  clock: Clock
  dataDir: string
  storage: BlobStorage
  /** Seals what a downloaded file must not show (tables.ts `sealed`) and opens it on restore. */
  secretKey: string
  log: Log
  /** Called with the restore's transaction: the target store's reviews changed (what is derived from them goes stale). */
  reviewsChanged?: (storeId: string, trx: Knex) => void
}

/** A runner that has not finished in this long is presumed gone, and another instance takes the backup over. */
export const STALE_AFTER_MS = 30 * 60_000
/** Rows per read of the export. */
const PAGE = 1000

export function presentBackup (row: BackupRow) {
  return {
    id: row.id,
    storeEnvId: row.store_env_id,
    status: row.status,
    size: row.size == null ? null : Number(row.size),
    checksum: row.checksum == null ? null : { algorithm: 'sha256' as const, value: row.checksum },
    counts: row.counts == null ? null : JSON.parse(row.counts) as Record<string, number>,
    error: row.error,
    createdAt: iso(row.created_at)!,
    completedAt: iso(row.completed_at)
  }
}

/**
 * A row as exported: without the tenant ids (the target's are written on restore) and without dropped columns, its
 * sealed columns sealed.
 */
function exportable (row: Record<string, unknown>, spec: ExportedTable, secretKey: string) {
  const out: Record<string, unknown> = {}
  const drop = spec.drop ?? []
  for (const [key, value] of Object.entries(row)) if (!TENANT_COLUMNS.includes(key) && !drop.includes(key)) out[key] = value
  for (const column of spec.sealed ?? []) {
    if (typeof out[column] === 'string') out[column] = { sealed: encrypt(out[column] as string, secretKey) }
  }
  return out
}

/**
 * Where the export's read transaction runs. MySQL: a connection of the pool, REPEATABLE READ. SQLite: the process
 * has one connection (db.ts), and a transaction on it would hold every other query of the process back for as long
 * as the rows take to read (some 18 s for a store of 100,000 reviews), or wait forever on a query made through `db`
 * meanwhile; so the export reads through a read-only connection of its own (db.ts sqliteReader), whose transaction
 * sees the database as it was at its first read while the process's connection goes on writing.
 */
function snapshotReader (db: Knex): { db: Knex, options?: Knex.TransactionConfig, close: () => Promise<void> } {
  if (isMysql(db)) return { db, options: { isolationLevel: 'repeatable read' }, close: async () => {} }
  const reader = sqliteReader(db)
  return reader ? { db: reader, close: () => reader.destroy() } : { db, close: async () => {} }
}

/** A line of the export's spool: an exported row, and for an upload the storage key of its file. */
type Spooled = { table: string, row: Record<string, unknown>, key?: string }

/**
 * The store's rows of `spec`'s table in its order, a page at a time by keyset (`WHERE (order) > (last row's)`):
 * a page starts where the last one ended (through the key's index where there is one), not by counting off the
 * rows before it as OFFSET does. The order is a unique key of the store's rows (test/backups checks it against the
 * schema), so every row comes once. Nulls sort first on both databases: only a page ending on a null key could
 * leave rows out, and that fails the backup instead.
 */
async function * rowsOf (trx: Knex, spec: ExportedTable, storeId: string): AsyncGenerator<Record<string, unknown>> {
  let last: unknown[] | null = null
  for (;;) {
    const query = trx(spec.table).where({ store_env_id: storeId }).orderBy(spec.orderBy).limit(PAGE)
    if (last) query.where(after(spec.orderBy, last))
    const rows: Array<Record<string, unknown>> = await query
    yield * rows
    if (rows.length < PAGE) return
    last = spec.orderBy.map((column) => rows.at(-1)![column])
    if (last.some((value) => value == null)) throw new Error(`${spec.table} has a row without its ${spec.orderBy.join(', ')}`)
  }
}

/** `(columns) > (values)`, written out (`a > ? OR (a = ? AND b > ?)`) as every MySQL, MariaDB and SQLite version reads it. */
function after (columns: string[], values: unknown[]) {
  return (query: Knex.QueryBuilder) => {
    columns.forEach((column, i) => {
      query.orWhere((branch) => {
        for (let j = 0; j < i; j++) branch.where(columns[j], values[j] as Knex.Value)
        branch.where(column, '>', values[i] as Knex.Value)
      })
    })
  }
}

export function backupsService (
  { db, repo, stores, events, audit, clock, dataDir, storage, secretKey, log, reviewsChanged = () => {} }: Deps
) {
  const pathOf = (row: BackupRow) => join(dataDir, 'backups', row.store_env_id, `${row.id}.ndjson.gz`)

  async function load (storeId: string, id: string) {
    const row = await repo.find(storeId, id)
    if (!row) throw new errors.NotFound('Backup')
    return row
  }

  /**
   * Every exported table of the store as NDJSON lines, each upload's file after its row (docs/backups.md), in two
   * steps. The rows are read in one read transaction, so the file holds the store as it was at one moment across
   * all its tables (writes made meanwhile are in none of them), and spooled to a local file; the backup file is
   * written from the spool once the transaction is over, the uploaded files read from storage then. The transaction
   * lasts as long as reading the rows, not as long as the uploads' files take to copy (a long one holds back
   * InnoDB's purge and DDL on the tables, and SQLite's checkpoints). The spool (the rows, gzipped, beside the backup
   * file) is removed whatever the outcome.
   */
  async function exportStore (row: BackupRow) {
    const dir = join(dataDir, 'backups', row.store_env_id)
    await mkdir(dir, { recursive: true })
    // Its own name per run: a runner taken over after STALE_AFTER_MS may still be writing one.
    const spool = join(dir, `${row.id}.${base62(8)}.rows.gz`)
    try {
      await spoolRows(row.store_env_id, spool)
      return await writeFromSpool(row, spool)
    } finally {
      await rm(spool, { force: true })
    }
  }

  /**
   * Writes the store's exported rows to `spool` (gzipped NDJSON, fast) from one read transaction, whose snapshot is
   * taken at its first read and serves every later one: on MySQL REPEATABLE READ, on SQLite a read transaction
   * (BEGIN, then reads) on a read-only connection of its own (snapshotReader).
   */
  async function spoolRows (storeId: string, spool: string) {
    const reader = snapshotReader(db)
    try {
      await reader.db.transaction(async (trx) => {
        await writeBackup(spool, async (write) => {
          for (const spec of EXPORTED_TABLES) {
            for await (const r of rowsOf(trx, spec, storeId)) {
              const exported = exportable(r, spec, secretKey)
              // An upload's storage key is not exported; the spool keeps it for reading the file afterwards.
              await write(
                spec.table === 'uploads'
                  ? { table: spec.table, row: exported, key: String(r.path) } as Spooled
                  : { table: spec.table, row: exported }
              )
            }
          }
        }, { level: 1 })
      }, reader.options)
    } finally {
      await reader.close()
    }
  }

  /** The backup file from the spool: its rows in order, each upload's row followed by its file (or left out, listed missing). */
  async function writeFromSpool (row: BackupRow, spool: string) {
    const counts: Record<string, number> = Object.fromEntries(EXPORTED_TABLES.map((spec) => [spec.table, 0]))
    const files = emptyManifest()
    const header: Header = {
      format: FORMAT,
      version: VERSION,
      backupId: row.id,
      storeEnvId: row.store_env_id,
      orgId: row.org_id,
      createdAt: iso(row.created_at)!,
      tables: EXPORTED_TABLES.map((t) => t.table)
    }
    const file = await writeBackup(pathOf(row), async (write) => {
      await write(header)
      for await (const line of readBackup(spool)) {
        const { table, row: exported, key } = line as Spooled
        if (table !== 'uploads') await write({ table, row: exported })
        else if (!await exportUpload(storage, row.store_env_id, { id: exported.id, path: key }, exported, write, files)) continue
        counts[table]++
      }
      await write({ end: true, counts, files })
    })
    if (files.missing.length) {
      log.warn({ backup: row.id, missing: files.missing.length }, 'backup without some uploaded files (listed in its footer)')
    }
    return { ...file, counts }
  }

  async function runOne (row: BackupRow, token: string) {
    let patch: Partial<BackupRow>
    try {
      const { size, checksum, counts } = await exportStore(row)
      patch = {
        status: 'completed',
        size,
        checksum,
        counts: JSON.stringify(counts),
        path: pathOf(row),
        completed_at: clock(),
        claim_token: null
      }
    } catch (err) {
      log.error({ err: { message: (err as Error).message }, backup: row.id }, 'backup failed')
      patch = {
        status: 'failed',
        error: clip(`The export failed: ${(err as Error).message}`, 500),
        completed_at: clock(),
        claim_token: null
      }
    }
    await db.transaction(async (trx) => {
      if (!await repo.finish(row.id, token, patch, trx)) return
      await events.append(trx, {
        orgId: row.org_id,
        storeEnvId: row.store_env_id,
        type: 'backup.updated',
        data: presentBackup({ ...row, ...patch } as BackupRow)
      })
    })
  }

  return {
    async create (store: StoreEnv, actor: string) {
      return db.transaction(async (trx) => {
        const row: BackupRow = {
          id: newId('bkp'),
          org_id: store.orgId,
          store_env_id: store.id,
          status: 'queued',
          size: null,
          checksum: null,
          path: null,
          counts: null,
          error: null,
          claim_token: null,
          claimed_at: null,
          created_by: actor,
          created_at: clock(),
          completed_at: null
        }
        await repo.insert(row, trx)
        const backup = presentBackup(row)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'backup.created', data: backup })
        return backup
      })
    },

    async list (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const since = query.updatedSince ? Date.parse(query.updatedSince) : null
      const { total, rows } = await repo.list(storeId, since, page)
      return envelope(rows.map(presentBackup), total, page)
    },

    async get (storeId: string, id: string) {
      return presentBackup(await load(storeId, id))
    },

    /** The file of a completed backup, with what to name and check it by. */
    async download (storeId: string, id: string) {
      const row = await load(storeId, id)
      if (row.status !== 'completed') throw new errors.Conflict(`The backup is ${row.status}; download it once it is completed`)
      const path = pathOf(row)
      await stat(path).catch(() => {
        throw new errors.Conflict('The backup file is no longer on this instance\'s DATA_DIR')
      })
      return { path, filename: `${row.id}.ndjson.gz`, checksum: row.checksum! }
    },

    /**
     * The background job's pass: exports every queued backup (and any a vanished runner left), one at a time; all
     * stores' or `storeId`'s.
     */
    async runQueued (storeId?: string): Promise<number> {
      let done = 0
      for (;;) {
        const now = clock()
        const token = base62(20)
        const row = await repo.claim(token, now, now - STALE_AFTER_MS, storeId)
        if (!row) return done
        await runOne(row, token)
        done++
      }
    },

    /**
     * Restores a completed backup into an empty store of the same organization, in one transaction. A repeated
     * restore of the same backup into the same store answers with the first result (idempotent).
     */
    async restore (store: StoreEnv, id: string, targetId: string, actor: { id: string, ip: string | null, storeIds: string[] | null }) {
      const row = await load(store.id, id)
      const target = await stores.find(targetId)
      if (!target || target.orgId !== row.org_id || (actor.storeIds && !actor.storeIds.includes(targetId))) {
        throw new errors.NotFound('Target store')
      }
      const previous = await repo.findRestore(row.id, targetId)
      if (previous) return presentRestore(previous)
      const { path, checksum } = await this.download(store.id, id)
      if (await checksumOf(path) !== checksum) throw new errors.Conflict('The backup file does not match its checksum')
      const files = { storage, written: [] as string[] }
      // A failed restore rolls its rows back; the files it wrote go too, so the target is left as it was.
      return db.transaction(async (trx) => {
        // The target's row first, before any plain read: restores into one store take turns, and the later one reads
        // what the earlier wrote (InnoDB's snapshot starts at a transaction's first plain read; taken before this
        // lock, the later restore found the store empty and answered 500 on the earlier's rows).
        await lockStore(trx, targetId)
        const again = await repo.findRestore(row.id, targetId, trx)
        if (again) return presentRestore(again)
        const counts = await restoreRows(trx, path, target, files, secretKey)
        reviewsChanged(targetId, trx)
        const restore = {
          backup_id: row.id,
          org_id: row.org_id,
          store_env_id: targetId,
          counts: JSON.stringify(counts),
          created_by: actor.id,
          created_at: clock()
        }
        await repo.insertRestore(restore, trx)
        await audit.record({
          orgId: row.org_id,
          action: 'backup.restored',
          actor: actor.id,
          subject: `store_env:${targetId}`,
          ip: actor.ip,
          details: { backupId: row.id, from: row.store_env_id }
        }, trx)
        return presentRestore(restore)
      }).catch(async (err: unknown) => {
        await Promise.all(files.written.map((key) => storage.remove(key)))
        throw err
      })
    }
  }
}

function presentRestore (row: { backup_id: string, store_env_id: string, counts: string, created_at: number }) {
  return {
    backupId: row.backup_id,
    targetStoreEnvId: row.store_env_id,
    counts: JSON.parse(row.counts) as Record<string, number>,
    restoredAt: iso(row.created_at)!
  }
}
export type BackupsService = ReturnType<typeof backupsService>
