import type { Knex } from 'knex'

/*
 * Insight and account (docs/contract/plans-and-limits.md#features): operator feature overrides per store, the invoices
 * the embedded billing provider raises, and support requests. Every row carries its org and store ids, indexed.
 */
/** Identifier columns compare exactly, as everywhere else (migrations/20261124010000_input_limits.ts made them binary). */
async function exactCollation (knex: Knex): Promise<string | undefined> {
  if (knex.client.config.client !== 'mysql2') return undefined
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
  )
  return (rows as Array<{ c: string }>)[0]?.c
}

export async function up (knex: Knex): Promise<void> {
  const collation = await exactCollation(knex)
  /** An identifier column: VARCHAR(40) in the exact collation on MySQL. */
  const id = (t: Knex.CreateTableBuilder, name: string) => {
    const column = t.string(name, 40).notNullable()
    if (collation) { column.collate(collation); t.charset('utf8mb4') }
    return column
  }
  // An override replaces what the store's plan says about one feature; no row means "as the plan says".
  await knex.schema.createTable('store_features', (t) => {
    id(t, 'store_env_id').references('store_envs.id').onDelete('CASCADE')
    id(t, 'org_id').references('organizations.id').onDelete('CASCADE')
    t.string('feature', 64).notNullable()
    t.boolean('enabled').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['store_env_id', 'feature'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('billing_invoices', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').references('organizations.id').onDelete('CASCADE')
    id(t, 'store_env_id').references('store_envs.id').onDelete('CASCADE')
    t.string('provider', 32).notNullable()
    t.string('plan', 16).notNullable()
    t.string('previous_plan', 16).notNullable()
    // Integer minor units (cents): no floats on money.
    t.integer('amount').notNullable()
    t.string('currency', 3).notNullable()
    t.string('status', 16).notNullable()
    t.bigInteger('period_start').notNullable()
    t.bigInteger('period_end').notNullable()
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id', 'created_at'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('support_requests', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').references('organizations.id').onDelete('CASCADE')
    id(t, 'store_env_id').references('store_envs.id').onDelete('CASCADE')
    t.string('credential', 120).notNullable()
    t.string('subject', 200).notNullable()
    t.text('body').notNullable()
    t.text('failed_request_ids').notNullable()
    t.string('mail_status', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id', 'created_at'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['support_requests', 'billing_invoices', 'store_features']) await knex.schema.dropTableIfExists(table)
}
