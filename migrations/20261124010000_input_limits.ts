import type { Knex } from 'knex'

/*
 * Column sizes and comparisons that match what the API accepts (issue "Trust what exists",
 * docs/contract/api-conventions.md#dates-and-sizes). MySQL only: SQLite's TEXT has no practical size limit and its
 * default BINARY collation already compares exactly (case and trailing spaces count).
 *
 * 1. Every table in utf8mb4, so 4-byte characters (emoji) are stored rather than refused.
 * 2. JSON documents that grow with accepted input move from TEXT (64 KB) to MEDIUMTEXT (16 MB): an order's line
 *    items (500 ids of 191 characters), every event's data (a review body of 10,000 escaped control characters plus
 *    its reply), the local mail outbox (a review request listing 500 products), an OAuth client's redirect URIs
 *    (10 of 2,000 characters, up to 4 bytes each) and the audit details that repeat them.
 * 3. Identifier columns (`id`, `kid`, `claim_token`, `*_id`, `*_hash`) compare exactly: a binary collation, NO PAD
 *    where the server has one, so `Dup-X`, `dup-x` and `Dup-X ` are three products, and an id differing in case or
 *    trailing spaces finds nothing.
 */

const GROWING_TEXT: Array<[string, string, 'NULL' | 'NOT NULL']> = [
  ['orders', 'line_items', 'NOT NULL'], ['events', 'data', 'NOT NULL'], ['mail_outbox', 'text', 'NOT NULL'],
  ['oauth_clients', 'redirect_uris', 'NOT NULL'], ['audit_log', 'details', 'NULL']
]
const IDENTIFIER = /^(id|kid|claim_token|.+_id|.+_hash)$/

interface ColumnInfo { table: string, column: string, type: string, nullable: string, collation: string | null }

async function rowsOf<T> (knex: Knex, sql: string, bindings: readonly Knex.Value[] = []): Promise<T[]> {
  const [rows] = await knex.raw(sql, bindings)
  return rows as T[]
}

/** The exact, padding-free binary collation of utf8mb4 on this server: MariaDB and MySQL 8 name it differently. */
async function exactCollation (knex: Knex): Promise<string> {
  for (const name of ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin']) {
    if ((await rowsOf(knex, 'SHOW COLLATION WHERE Collation = ?', [name])).length > 0) return name
  }
  return 'utf8mb4_bin'
}

async function convertToUtf8mb4 (knex: Knex): Promise<void> {
  const tables = await rowsOf<{ name: string }>(
    knex,
    'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = \'BASE TABLE\' AND TABLE_COLLATION NOT LIKE \'utf8mb4%\''
  )
  for (const { name } of tables) await knex.raw('ALTER TABLE ?? CONVERT TO CHARACTER SET utf8mb4', [name])
}

async function identifierColumns (knex: Knex): Promise<ColumnInfo[]> {
  const columns = await rowsOf<ColumnInfo>(
    knex,
    'SELECT TABLE_NAME AS `table`, COLUMN_NAME AS `column`, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLLATION_NAME AS collation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE = \'varchar\' AND TABLE_NAME NOT LIKE \'knex_migrations%\' ORDER BY TABLE_NAME, ORDINAL_POSITION'
  )
  return columns.filter((c) => IDENTIFIER.test(c.column))
}

interface ForeignKey {
  name: string
  table: string
  columns: string[]
  refTable: string
  refColumns: string[]
  onDelete: string
  onUpdate: string
}

async function foreignKeys (knex: Knex): Promise<ForeignKey[]> {
  const rows = await rowsOf<
    { name: string, table: string, column: string, refTable: string, refColumn: string, onDelete: string, onUpdate: string }
  >(
    knex,
    'SELECT rc.CONSTRAINT_NAME AS name, rc.TABLE_NAME AS `table`, k.COLUMN_NAME AS `column`, rc.REFERENCED_TABLE_NAME AS refTable, ' +
      'k.REFERENCED_COLUMN_NAME AS refColumn, rc.DELETE_RULE AS onDelete, rc.UPDATE_RULE AS onUpdate ' +
      'FROM information_schema.REFERENTIAL_CONSTRAINTS rc JOIN information_schema.KEY_COLUMN_USAGE k ' +
      'ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME AND k.TABLE_NAME = rc.TABLE_NAME ' +
      'WHERE rc.CONSTRAINT_SCHEMA = DATABASE() ORDER BY rc.TABLE_NAME, rc.CONSTRAINT_NAME, k.ORDINAL_POSITION'
  )
  const byName = new Map<string, ForeignKey>()
  for (const r of rows) {
    const key = `${r.table}.${r.name}`
    const fk = byName.get(key) ??
      { name: r.name, table: r.table, columns: [], refTable: r.refTable, refColumns: [], onDelete: r.onDelete, onUpdate: r.onUpdate }
    fk.columns.push(r.column)
    fk.refColumns.push(r.refColumn)
    byName.set(key, fk)
  }
  return [...byName.values()]
}

/**
 * One ALTER per table. MariaDB refuses to change the collation of a column in a foreign key (even with the checks
 * off), so the keys on these columns are dropped first and added back unchanged once both ends match again.
 */
async function setCollation (knex: Knex, columns: ColumnInfo[], collation: string): Promise<void> {
  const changed = new Set(columns.map((c) => `${c.table}.${c.column}`))
  const keys = (await foreignKeys(knex)).filter((fk) =>
    fk.columns.some((c) => changed.has(`${fk.table}.${c}`)) || fk.refColumns.some((c) => changed.has(`${fk.refTable}.${c}`))
  )
  const byTable = new Map<string, ColumnInfo[]>()
  for (const c of columns) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c])
  await knex.raw('SET FOREIGN_KEY_CHECKS = 0')
  try {
    for (const fk of keys) await knex.raw('ALTER TABLE ?? DROP FOREIGN KEY ??', [fk.table, fk.name])
    for (const [table, list] of byTable) {
      const clauses = list.map((c) => `MODIFY ${knex.raw('??', [c.column]).toQuery()} ${c.type} CHARACTER SET utf8mb4 COLLATE ${collation} ${c.nullable === 'YES' ? 'NULL' : 'NOT NULL'}`)
      await knex.raw(`ALTER TABLE ?? ${clauses.join(', ')}`, [table])
    }
    for (const fk of keys) {
      await knex.raw(`ALTER TABLE ?? ADD CONSTRAINT ?? FOREIGN KEY (${fk.columns.map(() => '??').join(', ')}) REFERENCES ?? (${fk.refColumns.map(() => '??').join(', ')}) ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate}`,
        [fk.table, fk.name, ...fk.columns, fk.refTable, ...fk.refColumns])
    }
  } finally {
    await knex.raw('SET FOREIGN_KEY_CHECKS = 1')
  }
}

export async function up (knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return
  await convertToUtf8mb4(knex)
  for (const [table, column, nullable] of GROWING_TEXT) await knex.raw(`ALTER TABLE ?? MODIFY ?? MEDIUMTEXT ${nullable}`, [table, column])
  const exact = await exactCollation(knex)
  await setCollation(knex, await identifierColumns(knex), exact)
}

export async function down (knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return
  const [{ collation }] = await rowsOf<{ collation: string }>(
    knex,
    'SELECT DEFAULT_COLLATION_NAME AS collation FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()'
  )
  const previous = collation.startsWith('utf8mb4') ? collation : 'utf8mb4_unicode_ci'
  await setCollation(knex, await identifierColumns(knex), previous)
  for (const [table, column, nullable] of GROWING_TEXT) await knex.raw(`ALTER TABLE ?? MODIFY ?? TEXT ${nullable}`, [table, column])
}
