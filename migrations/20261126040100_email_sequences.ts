import type { Knex } from 'knex'

/*
 * Review-request sequences (issue 17): the steps a store's review requests follow, replacing the single delay. At
 * most one sequence per store is active, kept by a unique column that holds the store id only while active (a
 * second activation fails on the index, whatever the race). Orders record which sequence and step their request is
 * at, so the scheduler claims exactly that step (modules/orders/review-request.scheduler.ts).
 */
export async function up (knex: Knex): Promise<void> {
  let exact: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
    )
    exact = (rows as Array<{ c: string }>)[0]?.c
  }
  const id = (t: Knex.CreateTableBuilder | Knex.AlterTableBuilder, name: string) => {
    const column = t.string(name, 40)
    if (exact) column.collate(exact)
    return column
  }
  await knex.schema.createTable('email_sequences', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').notNullable()
    id(t, 'store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    id(t, 'active_store_env_id').nullable()
    t.string('name', 200).notNullable()
    t.text('steps').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['active_store_env_id'])
    t.index(['store_env_id', 'updated_at'])
    t.index(['org_id'])
  })
  await knex.schema.alterTable('orders', (t) => {
    id(t, 'review_request_sequence_id').nullable()
    t.integer('review_request_step').nullable()
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('review_request_sequence_id')
    t.dropColumn('review_request_step')
  })
  await knex.schema.dropTableIfExists('email_sequences')
}
