import type { Knex } from 'knex'

/** Signed-in people (admin application and OAuth consent share one session). Only a hash of the cookie is kept. */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('person_sessions', (t) => {
    t.string('id_hash', 64).primary()
    t.string('person_id', 40).notNullable().references('people.id').onDelete('CASCADE')
    t.string('org_id', 40)
    t.string('store_env_id', 40)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.index(['person_id'])
    t.index(['expires_at'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('person_sessions')
}
