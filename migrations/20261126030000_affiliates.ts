import type { Knex } from 'knex'

/*
 * Affiliates, their referrals and the store's USD rates (docs/contract/resources.md#affiliates: the
 * commission of one referral is capped at 500 USD). Money is integer cents of the order's currency; a rate is an
 * integer in basis points. A referral is unique per order, so re-sending an order never records a second one.
 */
async function exactCollation (knex: Knex): Promise<string | undefined> {
  if (knex.client.config.client !== 'mysql2') return undefined
  // The identifiers compare exactly, as in `reviews` (migrations/20261124010000_input_limits.ts made them binary).
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'reviews\' AND COLUMN_NAME = \'store_env_id\''
  )
  return (rows as Array<{ c: string }>)[0]?.c
}

export async function up (knex: Knex): Promise<void> {
  const collation = await exactCollation(knex)
  const id = (t: Knex.CreateTableBuilder, name: string, length = 40) => {
    const column = t.string(name, length)
    if (collation) column.collate(collation)
    return column
  }
  await knex.schema.createTable('affiliates', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').notNullable()
    id(t, 'store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    id(t, 'customer_id', 64)
    t.string('name', 200).notNullable()
    // Upper-cased on write and on lookup: codes match whatever case a checkout sends.
    t.string('code', 64).notNullable()
    t.integer('commission_bp').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'code'])
    t.index(['store_env_id', 'updated_at'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('affiliate_referrals', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').notNullable()
    id(t, 'store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    id(t, 'affiliate_id').notNullable().references('affiliates.id').onDelete('CASCADE')
    id(t, 'platform_order_id', 191).notNullable()
    t.string('currency', 3)
    t.bigInteger('order_total_cents')
    t.integer('commission_bp').notNullable()
    t.bigInteger('commission_cents')
    t.bigInteger('commission_usd_cents')
    t.string('usd_rate', 24)
    t.boolean('capped').notNullable().defaultTo(false)
    t.string('status', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'platform_order_id'])
    t.index(['affiliate_id', 'updated_at'])
    t.index(['store_env_id', 'status', 'currency'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('affiliate_settings', (t) => {
    id(t, 'store_env_id').primary().references('store_envs.id').onDelete('CASCADE')
    id(t, 'org_id').notNullable()
    t.text('usd_rates').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['org_id'])
  })
  await knex.schema.alterTable('orders', (t) => {
    t.string('affiliate_code', 64)
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => { t.dropColumn('affiliate_code') })
  for (const table of ['affiliate_settings', 'affiliate_referrals', 'affiliates']) await knex.schema.dropTableIfExists(table)
}
