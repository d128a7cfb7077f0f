import type { Knex } from 'knex'

/*
 * A worker restricted to some stores (WORKER_STORE_IDS: a dedicated worker for a large tenant) claimed through the
 * store index with MariaDB's rowid filter built from the (status, next_attempt_at) range, and building that filter
 * inside FOR UPDATE locks every due row of every store until the claim commits. Another store's worker claiming at
 * that moment skipped its own due rows (SKIP LOCKED) and went back to sleep. With (store_env_id, status,
 * next_attempt_at) the claim is one range over its own stores' rows, in the order it takes them, and locks those
 * and at most the row just past them; the index also serves everything the single-column store index did.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.index(['store_env_id', 'status', 'next_attempt_at'], 'webhook_deliveries_store_due')
  })
  await knex.schema.alterTable('webhook_deliveries', (t) => { t.dropIndex(['store_env_id']) })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.index(['store_env_id'])
  })
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['store_env_id', 'status', 'next_attempt_at'], 'webhook_deliveries_store_due')
  })
}
