import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * Customers (issue 16, docs/contract/resources.md#customers): synced from the store platform, keyed on (store, platform
 * id); orders link to them by platform id or email. Erasure keeps the row (so ledgers and orders keep pointing at
 * something) with every personal field cleared and the platform id released (null), so a later sync of the same
 * platform id makes a new customer. `email_key` is the trimmed, lower-cased address the links match on.
 */

export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('customers', (t) => {
    id(t.string('id', 40).primary())
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('platform_customer_id', 191))
    t.string('email', 320)
    id(t.string('email_key', 320))
    t.string('first_name', 100)
    t.string('last_name', 100)
    t.string('phone', 40)
    t.tinyint('birthday_month')
    t.tinyint('birthday_day')
    t.smallint('birthday_year')
    t.bigInteger('erased_at')
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'platform_customer_id'])
    t.index(['store_env_id', 'email_key'])
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['birthday_month', 'birthday_day'])
    t.index(['org_id'])
  })
  await knex.schema.alterTable('orders', (t) => {
    id(t.string('platform_customer_id', 191))
    id(t.string('customer_id', 40))
    t.index(['store_env_id', 'customer_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.dropIndex(['store_env_id', 'customer_id'])
    t.dropColumn('customer_id')
    t.dropColumn('platform_customer_id')
  })
  await knex.schema.dropTableIfExists('customers')
}
