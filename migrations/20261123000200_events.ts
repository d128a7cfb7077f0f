import type { Knex } from 'knex'

/*
 * The event log. Writers append in the same transaction as their domain write, after taking the store's row lock
 * (store_envs.event_seq), so within one store ids become visible in commit order: a reader resuming after id N
 * can never later see an id below N appear (docs/contract/event-visibility.md#events).
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.alterTable('store_envs', (t) => {
    t.bigInteger('event_seq').notNullable().defaultTo(0)
  })
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id')
    t.string('org_id', 40).notNullable()
    t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE')
    t.string('type', 80).notNullable()
    t.text('data').notNullable()
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id', 'id'])
    t.index(['store_env_id', 'type', 'id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('events')
  await knex.schema.alterTable('store_envs', (t) => { t.dropColumn('event_seq') })
}
