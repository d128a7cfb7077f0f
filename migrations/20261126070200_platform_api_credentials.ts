import type { Knex } from 'knex'

/*
 * Platform API credentials (docs/contract/resources.md#platform-sync, issue 19): a BigCommerce webhook names a product
 * or order without its fields, so the store gives an API account's store hash and access token to read them. One sealed
 * JSON value per store and platform (lib/secrets.ts, SECRET_KEY), never served back.
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
  await knex.schema.createTable('platform_api_credentials', (t) => {
    t.string('org_id', 40).notNullable()
    const store = t.string('store_env_id', 40).notNullable()
    if (collation) store.collate(collation)
    store.references('store_envs.id').onDelete('CASCADE')
    t.string('platform', 16).notNullable()
    t.text('credentials_sealed').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['store_env_id', 'platform'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('platform_api_credentials')
}
