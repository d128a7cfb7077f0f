import type { Knex } from 'knex'

/*
 * Exact review totals without a scan (issue "Read path at the speed of the limiter"): one row per store and
 * (status, rating, verified) cell, at most 30 per store, kept in the same transaction as every review write
 * (modules/reviews/reviews.repository.ts). A list filtered by any mix of status, rating and verified sums at most
 * 30 rows; COUNT(*) over a store's million reviews read the whole index (hundreds of milliseconds).
 */
export async function up (knex: Knex): Promise<void> {
  // The store id compares exactly, as in `reviews` (migrations/20261124010000_input_limits.ts made it binary).
  let collation: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'reviews\' AND COLUMN_NAME = \'store_env_id\''
    )
    collation = (rows as Array<{ c: string }>)[0]?.c
  }
  await knex.schema.createTable('review_tallies', (t) => {
    const store = t.string('store_env_id', 40).notNullable()
    if (collation) store.collate(collation)
    t.string('status', 16).notNullable()
    t.tinyint('rating').notNullable()
    t.boolean('verified').notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'status', 'rating', 'verified'])
  })
  await knex.raw(
    'INSERT INTO review_tallies (store_env_id, status, rating, verified, n) SELECT store_env_id, status, rating, verified, COUNT(*) FROM reviews GROUP BY store_env_id, status, rating, verified'
  )
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('review_tallies')
}
