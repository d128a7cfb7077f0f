import { mkdirSync, readdirSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { inspect } from 'node:util'
import knex, { type Knex } from 'knex'
import { DATABASE_CONNECT_TIMEOUT_MS, type Config } from './config.js'
import { maskUrlsIn } from './lib/masked-url.js'

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations')

/**
 * Migrations keep the name of their TypeScript source wherever they run from (the sources through tsx, or the
 * compiled files in dist/), so a database migrated by one is current for the other.
 */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations () {
    return readdirSync(MIGRATIONS_DIR).filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')).sort()
  },
  getMigrationName: (file) => file.replace(/\.js$/, '.ts'),
  getMigration: (file) => import(pathToFileURL(join(MIGRATIONS_DIR, file)).href)
}

/**
 * What knex prints itself (a pool that cannot connect prints each failure with its stack): on stderr, with the
 * passwords of URLs in it masked.
 */
function knexSays (message: unknown): void {
  console.error(maskUrlsIn(typeof message === 'string' ? message : inspect(message)))
}
const log = { warn: knexSays, error: knexSays, deprecate: knexSays, debug: knexSays }

/** MySQL (mysql2) when DATABASE_URL is set, else the embedded SQLite file under DATA_DIR. */
export function knexConfig (config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databaseConnectTimeoutMs'>): Knex.Config {
  const migrations = { migrationSource, tableName: 'knex_migrations' }
  if (config.databaseUrl) {
    const timeout = config.databaseConnectTimeoutMs ?? DATABASE_CONNECT_TIMEOUT_MS
    return {
      client: 'mysql2',
      connection: {
        uri: config.databaseUrl.replace(/^mysql2:/, 'mysql:'),
        timezone: 'Z',
        decimalNumbers: true,
        charset: 'utf8mb4',
        connectTimeout: timeout,
        // knex sends plain queries, never prepared statements, yet mysql2 sizes each connection's statement cache up
        // front: 512 KB a connection at its default of 16,000 (~5 MB of heap for the pool).
        maxPreparedStatements: 16
      } as Knex.MySql2ConnectionConfig,
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: timeout,
      migrations,
      log
    }
  }
  mkdirSync(config.dataDir, { recursive: true })
  return {
    client: 'better-sqlite3',
    connection: { filename: join(config.dataDir, 'evidence-hub.sqlite') },
    useNullAsDefault: true,
    // One connection per process: SQLite serialises writers anyway, and WAL lets readers in other processes go on.
    pool: {
      min: 1,
      max: 1,
      afterCreate (conn: { pragma: (sql: string) => unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL')
        conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`)
        conn.pragma('foreign_keys = ON')
        done(null, conn)
      }
    },
    migrations,
    log
  }
}

export function createKnex (config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databaseConnectTimeoutMs'>): Knex {
  return knex(knexConfig(config))
}

/** How long an embedded connection waits for another's write lock before SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000

/**
 * A read-only connection of its own to the embedded database `db` works on, for a long read that must not hold the
 * process's one connection (WAL lets it read while that one writes); its queries are announced on `db` as the
 * process's own are. Null on MySQL, whose pool has connections to spare, and for an in-memory database.
 */
export function sqliteReader (db: Knex): Knex | null {
  if (isMysql(db)) return null
  const config = db.client.config as Knex.Config
  const connection = config.connection as Knex.BetterSqlite3ConnectionConfig | undefined
  if (!connection?.filename || connection.filename === ':memory:') return null
  const reader = knex({
    client: config.client,
    connection: { ...connection, options: { ...connection.options, readonly: true } },
    useNullAsDefault: true,
    pool: {
      min: 0,
      max: 1,
      afterCreate (conn: { pragma: (sql: string) => unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`)
        done(null, conn)
      }
    }
  })
  for (const event of ['query', 'query-response', 'query-error']) reader.on(event, (...args: unknown[]) => db.emit(event, ...args))
  return reader
}

export function isMysql (db: Knex): boolean {
  return db.client.config.client === 'mysql2'
}

/**
 * `column = key` ignoring case, in the form an index on the column serves: MySQL's collation already ignores case,
 * SQLite is told to (its index on the column is NOCASE). `lower(column) = ?` would read every row instead.
 */
export function equalsIgnoringCase (db: Knex, column: string, key: string): Knex.Raw {
  return isMysql(db) ? db.raw('?? = ?', [column, key]) : db.raw('?? = ? COLLATE NOCASE', [column, key])
}

/** Whether a write failed on a primary key or unique index another row already holds (either database). */
export function isDuplicateKey (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

export async function migrateLatest (db: Knex): Promise<void> {
  await db.migrate.latest()
}
