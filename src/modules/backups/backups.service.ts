import type { Knex } from 'knex'
import { mkdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { base62, newId } from '../../lib/ids.js'
import { clip } from '../../lib/text.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { StoreEnv, Log } from '../../types.js'
import type { AuditRepository } from '../audit/audit.repository.js'
import type { EventLog } from '../events/events.repository.js'
import type { StoresRepository } from '../account/stores.repository.js'
import type { BackupRow, BackupsRepository } from './backups.repository.js'
import type { BlobStorage } from '../uploads/storage.js'
import { checksumOf, FORMAT, VERSION, writeBackup, type Header } from './backup-file.js'
import { emptyManifest, exportUpload } from './backup-uploads.js'
import { restoreRows } from './restore.js'
import { lockStore } from '../../lib/bulk.js'
import { EXPORTED_TABLES, TENANT_COLUMNS, type ExportedTable } from './tables.js'
import { encrypt } from '../../lib/secrets.js'

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
  for (const column of spec.sealed ?? []) if (typeof out[column] === 'string') out[column] = { sealed: encrypt(out[column] as string, secretKey) }
  return out
}

export function backupsService ({ db, repo, stores, events, audit, clock, dataDir, storage, secretKey, log, reviewsChanged = () => {} }: Deps) {
  const pathOf = (row: BackupRow) => join(dataDir, 'backups', row.store_env_id, `${row.id}.ndjson.gz`)

  async function load (storeId: string, id: string) {
    const row = await repo.find(storeId, id)
    if (!row) throw new errors.NotFound('Backup')
    return row
  }

  /** Every exported table of the store, page by page, as NDJSON lines, each upload's file after its row (docs/backups.md). */
  async function exportStore (row: BackupRow) {
    await mkdir(join(dataDir, 'backups', row.store_env_id), { recursive: true })
    const counts: Record<string, number> = {}
    const files = emptyManifest()
    const header: Header = { format: FORMAT, version: VERSION, backupId: row.id, storeEnvId: row.store_env_id, orgId: row.org_id, createdAt: iso(row.created_at)!, tables: EXPORTED_TABLES.map((t) => t.table) }
    const file = await writeBackup(pathOf(row), async (write) => {
      await write(header)
      for (const spec of EXPORTED_TABLES) {
        counts[spec.table] = 0
        for (let offset = 0; ; offset += PAGE) {
          const rows = await db(spec.table).where({ store_env_id: row.store_env_id }).orderBy(spec.orderBy).offset(offset).limit(PAGE)
          for (const r of rows) {
            const exported = exportable(r, spec, secretKey)
            if (spec.table !== 'uploads') await write({ table: spec.table, row: exported })
            else if (!await exportUpload(storage, row.store_env_id, r, exported, write, files)) continue
            counts[spec.table]++
          }
          if (rows.length < PAGE) break
        }
      }
      await write({ end: true, counts, files })
    })
    if (files.missing.length) log.warn({ backup: row.id, missing: files.missing.length }, 'backup without some uploaded files (listed in its footer)')
    return { ...file, counts }
  }

  async function runOne (row: BackupRow, token: string) {
    let patch: Partial<BackupRow>
    try {
      const { size, checksum, counts } = await exportStore(row)
      patch = { status: 'completed', size, checksum, counts: JSON.stringify(counts), path: pathOf(row), completed_at: clock(), claim_token: null }
    } catch (err) {
      log.error({ err: { message: (err as Error).message }, backup: row.id }, 'backup failed')
      patch = { status: 'failed', error: clip(`The export failed: ${(err as Error).message}`, 500), completed_at: clock(), claim_token: null }
    }
    await db.transaction(async (trx) => {
      if (!await repo.finish(row.id, token, patch, trx)) return
      await events.append(trx, { orgId: row.org_id, storeEnvId: row.store_env_id, type: 'backup.updated', data: presentBackup({ ...row, ...patch } as BackupRow) })
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
      await stat(path).catch(() => { throw new errors.Conflict('The backup file is no longer on this instance\'s DATA_DIR') })
      return { path, filename: `${row.id}.ndjson.gz`, checksum: row.checksum! }
    },

    /** The background job's pass: exports every queued backup (and any a vanished runner left), one at a time; all stores' or `storeId`'s. */
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
      if (!target || target.orgId !== row.org_id || (actor.storeIds && !actor.storeIds.includes(targetId))) throw new errors.NotFound('Target store')
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
        const restore = { backup_id: row.id, org_id: row.org_id, store_env_id: targetId, counts: JSON.stringify(counts), created_by: actor.id, created_at: clock() }
        await repo.insertRestore(restore, trx)
        await audit.record({ orgId: row.org_id, action: 'backup.restored', actor: actor.id, subject: `store_env:${targetId}`, ip: actor.ip, details: { backupId: row.id, from: row.store_env_id } }, trx)
        return presentRestore(restore)
      }).catch(async (err: unknown) => {
        await Promise.all(files.written.map((key) => storage.remove(key)))
        throw err
      })
    }
  }
}

function presentRestore (row: { backup_id: string, store_env_id: string, counts: string, created_at: number }) {
  return { backupId: row.backup_id, targetStoreEnvId: row.store_env_id, counts: JSON.parse(row.counts) as Record<string, number>, restoredAt: iso(row.created_at)! }
}
export type BackupsService = ReturnType<typeof backupsService>
