import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import type { StoreEnv } from '../../types.js'
import { rebuildStore } from '../analytics/rollups.js'
import { FORMAT, readBackup, VERSION, type Header } from './backup-file.js'
import { EXPORTED_TABLES, TENANT_COLUMNS, type ExportedTable } from './tables.js'

const SPECS = new Map(EXPORTED_TABLES.map((spec) => [spec.table, spec]))
/** Rows per insert: SQLite caps the bound variables of one statement. */
const CHUNK = 40

/** Refuses a target holding any exported data: a restore never merges into a live store. */
async function assertEmpty (trx: Knex, storeId: string) {
  for (const { table } of EXPORTED_TABLES) {
    if (await trx(table).where({ store_env_id: storeId }).first(trx.raw('1 AS present'))) {
      throw new errors.Conflict(`The target store is not empty (it has ${table}); restore into a store without data`)
    }
  }
}

/** The row as the target's: its tenant ids, fresh ids where ids are global, references following them. */
function adopt (spec: ExportedTable, row: Record<string, unknown>, target: StoreEnv, ids: Map<string, Map<unknown, string>>) {
  const tenant: Record<string, string> = { store_env_id: target.id, org_id: target.orgId }
  const out: Record<string, unknown> = { ...row }
  for (const column of spec.tenantColumns ?? TENANT_COLUMNS) out[column] = tenant[column]
  for (const [column, prefix] of Object.entries(spec.newIds ?? {})) {
    const fresh = newId(prefix)
    ids.get(spec.table)!.set(row[column], fresh)
    out[column] = fresh
  }
  for (const [column, table] of Object.entries(spec.refs ?? {})) {
    if (row[column] == null) continue
    const mapped = ids.get(table)?.get(row[column])
    if (mapped === undefined) return null
    out[column] = mapped
  }
  return out
}

/**
 * Writes a backup file's rows into `target` inside `trx` (the caller's transaction, so a failure leaves the target
 * as it was), then rebuilds the aggregates derived from them. Returns the rows written per table.
 */
export async function restoreRows (trx: Knex, path: string, target: StoreEnv): Promise<Record<string, number>> {
  if (trx.client.config.client === 'mysql2') await trx('store_envs').where({ id: target.id }).forUpdate().first('id')
  await assertEmpty(trx, target.id)
  const ids = new Map(EXPORTED_TABLES.map((spec) => [spec.table, new Map<unknown, string>()]))
  const counts: Record<string, number> = {}
  let pending: { table: string, rows: Array<Record<string, unknown>> } = { table: '', rows: [] }
  const flush = async () => {
    for (let i = 0; i < pending.rows.length; i += CHUNK) await trx(pending.table).insert(pending.rows.slice(i, i + CHUNK))
    pending.rows = []
  }
  let header: Header | null = null
  for await (const line of readBackup(path)) {
    if (!header) {
      header = line as Header
      if (header.format !== FORMAT || header.version > VERSION) throw new errors.Conflict('The file is not a backup this version can restore')
      continue
    }
    if ('end' in line) break
    if (!('table' in line)) continue
    const spec = SPECS.get(line.table)
    if (!spec) continue
    if (pending.table !== spec.table) {
      await flush()
      pending = { table: spec.table, rows: [] }
    }
    const row = adopt(spec, line.row, target, ids)
    if (!row) continue
    pending.rows.push(row)
    counts[spec.table] = (counts[spec.table] ?? 0) + 1
    if (pending.rows.length >= CHUNK * 25) await flush()
  }
  await flush()
  await rebuildStore(trx, target.id)
  return Object.fromEntries(EXPORTED_TABLES.map(({ table }) => [table, counts[table] ?? 0]))
}
