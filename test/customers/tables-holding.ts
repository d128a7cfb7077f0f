import type { FastifyInstance } from 'fastify'

/** Every text column of every table, on either database: the generic "no table keeps the address" search. */
export async function tablesHolding (app: FastifyInstance, needle: string): Promise<string[]> {
  const db = app.db
  const columns: Array<{ table: string, column: string }> = []
  if (db.client.config.client === 'mysql2') {
    const [rows] = await db.raw(
      'SELECT TABLE_NAME AS `table`, COLUMN_NAME AS `column` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN (\'char\', \'varchar\', \'tinytext\', \'text\', \'mediumtext\', \'longtext\', \'json\')'
    )
    columns.push(...rows)
  } else {
    const tables: Array<{ name: string }> = await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    for (const { name } of tables) {
      const info: Array<{ name: string, type: string }> = await db.raw(`PRAGMA table_info(${JSON.stringify(name)})`)
      for (const c of info) if (/char|text|clob|json/i.test(c.type)) columns.push({ table: name, column: c.name })
    }
  }
  if (columns.length < 40) throw new Error(`only ${columns.length} text columns found`)
  const found: string[] = []
  for (const { table, column } of columns) {
    const [{ n }] = await db(table).whereRaw('lower(??) like ?', [column, `%${needle}%`]).count({ n: '*' })
    if (Number(n) > 0) found.push(`${table}.${column}`)
  }
  return found
}
