import { gunzipSync, gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import type { Tenant } from '../factories.js'

/** Calls as the tenant's key (or `key`) on its store. */
export const as =
  (app: FastifyInstance, tenant: Tenant, key = tenant.key) => (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) =>
    call(app, { method, url, key, store: tenant.storeId, payload })

/** A backup of the tenant's store, built by the background runner. */
export async function completedBackup (app: FastifyInstance, tenant: Tenant) {
  const created = await as(app, tenant)('POST', '/v1/backups')
  await app.services.backups.runQueued(tenant.storeId)
  return { created, backup: (await as(app, tenant)('GET', `/v1/backups/${created.json().id}`)).json() }
}

/** The lines of a backup's file on disk. */
export async function backupLines (app: FastifyInstance, backupId: string): Promise<Array<Record<string, any>>> {
  const row = await app.services.db('backups').where({ id: backupId }).first()
  return gunzipSync(await readFile(row.path)).toString().trim().split('\n').map((line) => JSON.parse(line))
}

/**
 * Replaces a backup's file by `lines` with its recorded checksum made to match: a file damaged before the checksum
 * was taken, or written by another tool, which only the checks inside the file can catch.
 */
export async function rewriteBackup (app: FastifyInstance, backupId: string, lines: Array<Record<string, unknown>>) {
  const row = await app.services.db('backups').where({ id: backupId }).first()
  const bytes = gzipSync(lines.map((line) => JSON.stringify(line) + '\n').join(''))
  await writeFile(row.path, bytes)
  await app.services.db('backups').where({ id: backupId }).update({
    checksum: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length
  })
}
