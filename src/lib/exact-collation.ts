import type { Knex } from 'knex'

/**
 * For migrations that add tables after migrations/20261124010000_input_limits.ts: a column wrapper giving identifier
 * columns the exact (binary) collation that migration gave the existing ones on MySQL, read back from
 * `reviews.store_env_id`, so ids compare exactly there too. SQLite already compares exactly: the wrapper is a no-op.
 */
type Wrap = <C extends object>(column: C) => C

export async function exactIds (knex: Knex): Promise<Wrap> {
  if (knex.client.config.client !== 'mysql2') return (column) => column
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'reviews\' AND COLUMN_NAME = \'store_env_id\''
  )
  const collation = (rows as Array<{ c: string }>)[0]?.c
  return (column) => {
    if (collation) (column as unknown as Knex.ColumnBuilder).collate(collation)
    return column
  }
}
