import type { Knex } from 'knex'

/*
 * The event log's per-store lock moves off store_envs to a row nothing references. Every table of a store's data
 * has a foreign key to store_envs, so each insert into them takes a shared lock on the store's row (MySQL); a bulk
 * batch that inserted its items first and then bumped store_envs.event_seq upgraded that shared lock while another
 * batch held one too, and the two deadlocked. Bumping `event_heads.seq` instead serialises the appenders of a store
 * from the bump to commit, as before (ids still commit in order), without meeting those shared locks.
 * store_envs.event_seq stays (unused) rather than rebuilding the table on SQLite.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('event_heads', (t) => {
    t.string('store_env_id', 40).primary()
    t.bigInteger('seq').notNullable().defaultTo(0)
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('event_heads')
}
