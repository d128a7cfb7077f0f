import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knex, { type Knex } from 'knex'
import type { Test } from 'tap'
import { onMysql, TEST_DATABASE_URL } from './helper.js'
import { createKnex } from '../src/db.js'
import { base62 } from '../src/lib/ids.js'

/** A database of its own (not yet migrated), for a test that takes a migration back and forth; dropped at teardown. */
export async function scratchDatabase (t: Test, prefix: string): Promise<Knex> {
  if (!onMysql) {
    const dataDir = mkdtempSync(join(tmpdir(), `eh-${prefix}-`))
    const db = createKnex({ dataDir })
    t.teardown(async () => { await db.destroy(); rmSync(dataDir, { recursive: true, force: true }) })
    return db
  }
  const name = `eh_${prefix}_${base62(8).toLowerCase()}`
  const server = knex({ client: 'mysql2', connection: { uri: TEST_DATABASE_URL.replace(/\/[^/]*$/, '/') } as never })
  await server.raw(`CREATE DATABASE \`${name}\``)
  const db = createKnex({ databaseUrl: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${name}`), dataDir: tmpdir() })
  t.teardown(async () => { await db.destroy(); await server.raw(`DROP DATABASE \`${name}\``); await server.destroy() })
  return db
}
