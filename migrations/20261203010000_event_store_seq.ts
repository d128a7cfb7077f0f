import type { Knex } from 'knex'

/*
 * Event ids are numbered per store (issue 45): `evt_<seq>`, where seq counts one store's events, assigned from the
 * store's `event_heads` row in the appending transaction. The ids were the global auto-increment id, which showed
 * every tenant the platform's volume. A row that exists keeps its id (seq = id: platforms de-duplicate on it, and
 * cursors held by clients keep their place), and each store's head starts from its own last id, so its next events
 * follow on; a new store counts from 1.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.bigInteger('seq').notNullable().defaultTo(0)
  })
  await knex('events').update({ seq: knex.ref('id') })
  await knex.schema.alterTable('events', (t) => {
    t.unique(['store_env_id', 'seq'], { indexName: 'events_store_env_id_seq_unique' })
  })
  const last = knex('events').where('events.store_env_id', knex.ref('event_heads.store_env_id')).max('id')
  await knex('event_heads').whereExists(last.clone()).update({ seq: last })
  await knex.into(knex.raw('?? (??, ??)', ['event_heads', 'store_env_id', 'seq']))
    .insert(
      knex('events').whereNotIn('store_env_id', knex('event_heads').select('store_env_id')).groupBy('store_env_id').select(
        'store_env_id',
        knex.raw('max(id)')
      )
    )
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropUnique(['store_env_id', 'seq'], 'events_store_env_id_seq_unique')
    t.dropColumn('seq')
  })
}
