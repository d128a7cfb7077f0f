import type { Knex } from 'knex'

/*
 * Platform sync (docs/contract/resources.md#platform-sync, issue 19). Each store keeps one secret per platform, sealed
 * with SECRET_KEY (lib/secrets.ts); every accepted inbound delivery leaves a receipt keyed on the platform's own
 * delivery id, so a retried delivery is recognised and applied once. Products and orders remember the platform's
 * `updated_at`, so an older notification arriving late never overwrites a newer one. The (store, updated_at, id)
 * indexes serve the incremental lists (`updatedSince` + cursor), oldest change first.
 */
export async function up (knex: Knex): Promise<void> {
  // Store ids compare exactly (migrations/20261124010000_input_limits.ts made them binary): the same collation here.
  let collation: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
    )
    collation = (rows as Array<{ c: string }>)[0]?.c
  }
  const storeColumn = (t: Knex.CreateTableBuilder) => {
    const column = t.string('store_env_id', 40).notNullable()
    if (collation) column.collate(collation)
    column.references('store_envs.id').onDelete('CASCADE')
  }
  await knex.schema.createTable('platform_webhook_secrets', (t) => {
    t.string('org_id', 40).notNullable()
    storeColumn(t)
    t.string('platform', 16).notNullable()
    t.text('secret_sealed').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['store_env_id', 'platform'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('platform_webhook_receipts', (t) => {
    t.bigIncrements('id')
    t.string('org_id', 40).notNullable()
    storeColumn(t)
    t.string('platform', 16).notNullable()
    t.string('delivery_id', 191).notNullable()
    t.string('topic', 100).notNullable()
    t.string('outcome', 16).notNullable() // applied | stale | ignored | rejected
    t.string('detail', 500)
    t.bigInteger('received_at').notNullable()
    t.unique(['store_env_id', 'platform', 'delivery_id'], { indexName: 'platform_receipts_delivery' })
    t.index(['org_id'])
  })
  for (const table of ['products', 'orders']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('platform_updated_at')
      t.index(['store_env_id', 'updated_at', 'id'], `${table}_sync_order`)
    })
  }
  await knex.schema.alterTable('reviews', (t) => {
    t.index(['store_env_id', 'updated_at', 'id'], 'reviews_sync_order')
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('reviews', (t) => { t.dropIndex(['store_env_id', 'updated_at', 'id'], 'reviews_sync_order') })
  for (const table of ['products', 'orders']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex(['store_env_id', 'updated_at', 'id'], `${table}_sync_order`)
      t.dropColumn('platform_updated_at')
    })
  }
  await knex.schema.dropTableIfExists('platform_webhook_receipts')
  await knex.schema.dropTableIfExists('platform_webhook_secrets')
}
