import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * The mails that thank a customer for a reward (issue 17, docs/contract/resources.md#email): a loyalty birthday or
 * referral reward, a review incentive. `email_settings` says per store whether they go out. `reward_mails` is their
 * queue: a row is written in the transaction that grants the reward, and the unique (store, source) key (the ledger
 * entry `lle_…` or the incentive issue `rii_…`) is what keeps a reward to one mail, however often or on however many
 * workers the grant runs. The send job then moves each row to the message log through the one mail path.
 */
export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('email_settings', (t) => {
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().primary().references('store_envs.id').onDelete('CASCADE'))
    t.boolean('loyalty_reward_mails').notNullable()
    t.boolean('review_incentive_mails').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['org_id'])
  })

  await knex.schema.createTable('reward_mails', (t) => {
    t.bigIncrements('id')
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('source_id', 64).notNullable())
    id(t.string('template_key', 40).notNullable())
    id(t.string('to', 320).notNullable())
    t.text('values').notNullable()
    // pending (waiting for the send job), done (in the message log: message_id), skipped (reason says why).
    t.string('state', 16).notNullable()
    t.bigInteger('message_id').nullable()
    t.string('reason', 1000).nullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'source_id'])
    t.index(['state', 'id'])
    t.index(['store_env_id', 'to'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('reward_mails')
  await knex.schema.dropTableIfExists('email_settings')
}
