import type { Knex } from 'knex'

/*
 * Week and month rows beside the day rows of review_rollups and engagement_rollups (issue 18: a two-year series summed
 * ~11,000 day rows per request). Each holds the same counts as the day rows of its period and is moved in the same
 * statement batch as they are (src/modules/analytics/rollups.ts), so a long range reads its whole periods here and
 * only its partial end periods by day (src/modules/analytics/periods.ts splitRange). `first_day` is the day number
 * of the period's first day in UTC, the zone every analytics period is computed in; weeks start on Monday.
 */

function periodColumns (t: Knex.CreateTableBuilder) {
  t.string('grain', 8).notNullable()
  t.integer('first_day').notNullable()
}

/** The period of a day number, in SQL both databases run (days are never before 1970, so % is never negative). */
function firstDayExpr (knex: Knex, grain: 'week' | 'month'): string {
  if (grain === 'week') return '(day - ((day + 3) % 7))'
  return knex.client.config.client === 'mysql2'
    ? "(day + 1 - DAYOFMONTH(DATE_ADD('1970-01-01', INTERVAL day DAY)))"
    : "(day + 1 - CAST(strftime('%d', day * 86400, 'unixepoch') AS INTEGER))"
}

/** The collations of the day table's identifier columns, so the copies compare exactly as they do. */
async function collations (knex: Knex, table: string): Promise<Map<string, string>> {
  if (knex.client.config.client !== 'mysql2') return new Map()
  const [rows] = await knex.raw(
    'SELECT COLUMN_NAME AS name, COLLATION_NAME AS collation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
    [table]
  )
  return new Map((rows as Array<{ name: string, collation: string | null }>).filter((r) => r.collation).map((r) => [r.name, r.collation!]))
}

function identifier (t: Knex.CreateTableBuilder, name: string, length: number, collation: string | undefined) {
  const column = t.string(name, length).notNullable()
  if (collation) column.collate(collation)
}

export async function up (knex: Knex): Promise<void> {
  const reviews = await collations(knex, 'review_rollups')
  await knex.schema.createTable('review_period_rollups', (t) => {
    identifier(t, 'store_env_id', 40, reviews.get('store_env_id'))
    identifier(t, 'product_id', 191, reviews.get('product_id'))
    periodColumns(t)
    t.string('status', 16).notNullable()
    t.tinyint('rating').notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'product_id', 'grain', 'first_day', 'status', 'rating'])
  })
  const engagement = await collations(knex, 'engagement_rollups')
  await knex.schema.createTable('engagement_period_rollups', (t) => {
    identifier(t, 'store_env_id', 40, engagement.get('store_env_id'))
    periodColumns(t)
    t.string('kind', 16).notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'grain', 'first_day', 'kind'])
  })
  for (const grain of ['week', 'month'] as const) {
    const first = firstDayExpr(knex, grain)
    await knex.raw(
      `INSERT INTO review_period_rollups (store_env_id, product_id, grain, first_day, status, rating, n) SELECT store_env_id, product_id, ?, ${first}, status, rating, SUM(n) FROM review_rollups GROUP BY store_env_id, product_id, ${first}, status, rating`,
      [grain]
    )
    await knex.raw(
      `INSERT INTO engagement_period_rollups (store_env_id, grain, first_day, kind, n) SELECT store_env_id, ?, ${first}, kind, SUM(n) FROM engagement_rollups GROUP BY store_env_id, ${first}, kind`,
      [grain]
    )
  }
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['engagement_period_rollups', 'review_period_rollups']) await knex.schema.dropTableIfExists(table)
}
