import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'

export type BackupStatus = 'queued' | 'running' | 'completed' | 'failed'

export interface BackupRow {
  id: string
  org_id: string
  store_env_id: string
  status: BackupStatus
  size: number | null
  checksum: string | null
  path: string | null
  counts: string | null
  error: string | null
  claim_token: string | null
  claimed_at: number | null
  created_by: string | null
  created_at: number
  completed_at: number | null
}

export interface RestoreRow {
  backup_id: string
  org_id: string
  store_env_id: string
  counts: string
  created_by: string | null
  created_at: number
}

export function backupsRepository (db: Knex) {
  return {
    async insert (row: BackupRow, trx: Knex = db) {
      await trx('backups').insert(row)
    },

    find (storeId: string, id: string, trx: Knex = db): Promise<BackupRow | undefined> {
      return trx<BackupRow>('backups').where({ store_env_id: storeId, id }).first()
    },

    list (storeId: string, since: number | null, page: { offset: number, limit: number }) {
      const base = db<BackupRow>('backups').where({ store_env_id: storeId })
      if (since !== null) base.where((q) => q.where('created_at', '>=', since).orWhere('completed_at', '>=', since))
      return countAndPage<BackupRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
    },

    /**
     * Takes the oldest queued backup, or one whose runner stopped answering (claimed before `staleBefore`), for this
     * runner (of one store's backups only, with `storeId`): the conditional update lets exactly one instance win each row.
     */
    async claim (token: string, now: number, staleBefore: number, storeId?: string): Promise<BackupRow | undefined> {
      const query = db('backups')
        .where((q) => q.where({ status: 'queued' }).orWhere((r) => r.where({ status: 'running' }).where('claimed_at', '<', staleBefore)))
      if (storeId) query.where({ store_env_id: storeId })
      const candidates = await query.orderBy('created_at').limit(5).select('id', 'status', 'claim_token')
      for (const c of candidates as Array<{ id: string, status: string, claim_token: string | null }>) {
        const won = await db('backups').where({ id: c.id, status: c.status }).where((q) =>
          c.claim_token === null ? q.whereNull('claim_token') : q.where({ claim_token: c.claim_token })
        )
          .update({ status: 'running', claim_token: token, claimed_at: now })
        if (won === 1) return db<BackupRow>('backups').where({ id: c.id }).first()
      }
      return undefined
    },

    /** Only the runner holding the claim may finish the backup (a stale runner's late finish changes nothing). */
    async finish (id: string, token: string, patch: Partial<BackupRow>, trx: Knex = db): Promise<boolean> {
      return (await trx('backups').where({ id, claim_token: token, status: 'running' }).update(patch)) === 1
    },

    findRestore (backupId: string, storeId: string, trx: Knex = db): Promise<RestoreRow | undefined> {
      return trx<RestoreRow>('backup_restores').where({ backup_id: backupId, store_env_id: storeId }).first()
    },

    async insertRestore (row: RestoreRow, trx: Knex) {
      await trx('backup_restores').insert(row)
    }
  }
}
export type BackupsRepository = ReturnType<typeof backupsRepository>
