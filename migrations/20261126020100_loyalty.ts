import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * Loyalty (issue 16, docs/contract/resources.md#loyalty): per-store settings, one account per customer with its
 * balance, and an append-only ledger. The ledger's unique key (store, customer, kind, key) is what makes a grant happen
 * once: an API transaction's idempotency key, a birthday's year, a referral's id, a review's id. Points are integers
 * throughout.
 */

export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('loyalty_settings', (t) => {
    id(t.string('store_env_id', 40).primary().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('org_id', 40).notNullable())
    t.integer('points_per_unit').notNullable()
    t.integer('birthday_points').notNullable()
    t.integer('referrer_points').notNullable()
    t.integer('referee_points').notNullable()
    t.text('tiers').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['org_id'])
  })
  await knex.schema.createTable('loyalty_accounts', (t) => {
    id(t.string('id', 40).primary())
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('customer_id', 40).notNullable())
    t.bigInteger('balance').notNullable()
    t.bigInteger('lifetime_points').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'customer_id'])
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('loyalty_ledger', (t) => {
    t.bigIncrements('id')
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('account_id', 40).notNullable())
    id(t.string('customer_id', 40).notNullable())
    t.string('kind', 16).notNullable()
    id(t.string('idempotency_key', 100).notNullable())
    t.bigInteger('points').notNullable()
    t.bigInteger('balance_after').notNullable()
    t.string('reason', 500).notNullable()
    t.bigInteger('created_at').notNullable()
    t.unique(['store_env_id', 'customer_id', 'kind', 'idempotency_key'], { indexName: 'loyalty_ledger_once' })
    t.index(['account_id', 'id'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('loyalty_referrals', (t) => {
    id(t.string('id', 40).primary())
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('referrer_customer_id', 40).notNullable())
    t.string('referee_email', 320)
    id(t.string('referee_email_key', 320))
    id(t.string('referee_customer_id', 40))
    id(t.string('order_id', 191))
    t.string('status', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('completed_at')
    t.unique(['store_env_id', 'referee_email_key'])
    t.index(['store_env_id', 'created_at'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['loyalty_referrals', 'loyalty_ledger', 'loyalty_accounts', 'loyalty_settings']) {
    await knex.schema.dropTableIfExists(table)
  }
}
