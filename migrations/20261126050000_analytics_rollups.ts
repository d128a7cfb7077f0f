import type { Knex } from 'knex'
import { reasonCode } from '../src/modules/analytics/reasons.js'

/*
 * Analytics aggregates kept as data arrives (issue 18: exact, and fast over a million reviews), each moved by its
 * delta in the writer's transaction (src/modules/analytics/rollups.ts):
 * - review_rollups: reviews per UTC day of `written_at`, product, status and rating. product_id '' holds the whole
 *   store (no platform id is empty), so a store-wide series reads at most 15 rows a day whatever the catalogue size.
 * - review_request_tallies: orders per review request state, reason code and whether the order has a review.
 * - engagement_rollups: storefront engagement (helpful votes, favourites, leads, video uploads) per day and kind.
 */

/** Identifier columns compare exactly, like the columns they mirror (migrations/20261124010000_input_limits.ts). */
async function collationOf (knex: Knex, table: string, column: string): Promise<string | undefined> {
  if (knex.client.config.client !== 'mysql2') return undefined
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
    [table, column]
  )
  return (rows as Array<{ c: string }>)[0]?.c
}

function dayExpr (knex: Knex, column: string): string {
  return knex.client.config.client === 'mysql2' ? `FLOOR(${column} / 86400000)` : `(${column} / 86400000)`
}

export async function up (knex: Knex): Promise<void> {
  const storeCollation = await collationOf(knex, 'reviews', 'store_env_id')
  const productCollation = await collationOf(knex, 'reviews', 'product_id')
  const storeColumn = (t: Knex.CreateTableBuilder) => {
    const column = t.string('store_env_id', 40).notNullable()
    if (storeCollation) column.collate(storeCollation)
  }
  await knex.schema.createTable('review_rollups', (t) => {
    storeColumn(t)
    const product = t.string('product_id', 191).notNullable()
    if (productCollation) product.collate(productCollation)
    t.integer('day').notNullable()
    t.string('status', 16).notNullable()
    t.tinyint('rating').notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'product_id', 'day', 'status', 'rating'])
  })
  await knex.schema.createTable('review_request_tallies', (t) => {
    storeColumn(t)
    t.string('state', 16).notNullable()
    t.string('reason', 32).notNullable()
    t.boolean('reviewed').notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'state', 'reason', 'reviewed'])
  })
  await knex.schema.createTable('engagement_rollups', (t) => {
    storeColumn(t)
    t.integer('day').notNullable()
    t.string('kind', 16).notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'day', 'kind'])
  })

  const day = dayExpr(knex, 'written_at')
  await knex.raw(`INSERT INTO review_rollups (store_env_id, product_id, day, status, rating, n) SELECT store_env_id, product_id, ${day}, status, rating, COUNT(*) FROM reviews GROUP BY store_env_id, product_id, ${day}, status, rating`)
  await knex.raw(`INSERT INTO review_rollups (store_env_id, product_id, day, status, rating, n) SELECT store_env_id, '', ${day}, status, rating, COUNT(*) FROM reviews GROUP BY store_env_id, ${day}, status, rating`)
  await knex.raw(`INSERT INTO engagement_rollups (store_env_id, day, kind, n) SELECT store_env_id, ${dayExpr(knex, 'created_at')}, 'helpful', COUNT(*) FROM review_votes GROUP BY store_env_id, ${dayExpr(knex, 'created_at')}`)

  // Reasons are free text (they name products), so they are grouped by code here rather than in SQL.
  const orders = await knex('orders as o').whereNotNull('o.review_request_state')
    .select('o.store_env_id', 'o.review_request_state as state', 'o.review_request_reason as reason',
      knex.raw('EXISTS (SELECT 1 FROM reviews r WHERE r.store_env_id = o.store_env_id AND r.order_id = o.platform_order_id) AS reviewed'))
  const cells = new Map<string, { store_env_id: string, state: string, reason: string, reviewed: boolean, n: number }>()
  for (const o of orders as Array<{ store_env_id: string, state: string, reason: string | null, reviewed: number }>) {
    const cell = {
      store_env_id: o.store_env_id,
      state: o.state,
      reason: reasonCode(o.state, o.reason),
      reviewed: Boolean(Number(o.reviewed)),
      n: 0
    }
    const key = `${cell.store_env_id}|${cell.state}|${cell.reason}|${cell.reviewed}`
    const held = cells.get(key) ?? cell
    held.n++
    cells.set(key, held)
  }
  const rows = [...cells.values()]
  for (let i = 0; i < rows.length; i += 100) await knex('review_request_tallies').insert(rows.slice(i, i + 100))
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['engagement_rollups', 'review_request_tallies', 'review_rollups']) await knex.schema.dropTableIfExists(table)
}
