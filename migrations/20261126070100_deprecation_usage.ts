import type { Knex } from 'knex'

/*
 * Use of a deprecated surface, counted per organization (docs/changelog.md#versioning-policy): the
 * running total, how far the count has read, when it was last used, and when the owner was last mailed about it
 * (at most once a week while use continues). The attempts index lets the count read only what is new.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('deprecation_usage', (t) => {
    t.string('org_id', 40).notNullable()
    t.string('surface', 64).notNullable()
    t.bigInteger('uses').notNullable().defaultTo(0)
    t.bigInteger('counted_until').notNullable()
    t.bigInteger('last_used_at')
    t.string('last_store_env_id', 40)
    t.bigInteger('last_notified_at')
    t.primary(['org_id', 'surface'])
  })
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.index(['at'], 'webhook_attempts_at')
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => { t.dropIndex(['at'], 'webhook_attempts_at') })
  await knex.schema.dropTableIfExists('deprecation_usage')
}
