import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import knex from 'knex'
import { createKnex, migrateLatest } from '../src/db.js'
import { loadSigningKeys } from '../oauth/keys.js'
import { TEST_SECRET_KEY } from '../test/secret.js'

/** The test databases of `npm test` and `npm run test:mutation`, made afresh for each run. */

/** Drops and recreates the MySQL database of `databaseUrl`, then migrates it. */
export async function resetMysql (databaseUrl: string) {
  const url = new URL(databaseUrl)
  const name = url.pathname.slice(1)
  if (!/^\w+$/.test(name)) throw new Error(`unexpected test database name: ${name}`)
  const server = knex({
    client: 'mysql2',
    connection: {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password)
    }
  })
  await server.raw(`DROP DATABASE IF EXISTS \`${name}\``)
  await server.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  await server.destroy()
  const db = createKnex({ databaseUrl, dataDir: tmpdir() })
  await migrateLatest(db)
  await db.destroy()
}

/**
 * The embedded template: migrated, with the OAuth signing key made once. Each test process works on its own copy
 * (test/helper.ts), and would otherwise generate a key pair in every file as it builds its first app. Answers the
 * template's folder, for EH_TEST_DATA_DIR.
 */
export async function prepareSqlite (): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'evidence-hub-test-'))
  const db = createKnex({ dataDir: dir })
  await migrateLatest(db)
  await loadSigningKeys(db, TEST_SECRET_KEY, Date.now())
  await db.destroy()
  return dir
}
