import type { Knex } from 'knex'

/*
 * Times are stored as epoch milliseconds (BIGINT) so MySQL and SQLite read back the same value;
 * the API renders them as ISO 8601 UTC. Every tenant-owned table carries org_id (and store_env_id), indexed.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.string('id', 40).primary()
    t.string('name', 200).notNullable()
    t.bigInteger('created_at').notNullable()
  })
  await knex.schema.createTable('people', (t) => {
    t.string('id', 40).primary()
    t.string('email', 320).notNullable().unique()
    t.string('name', 200)
    t.string('password_hash', 255)
    t.bigInteger('created_at').notNullable()
  })
  await knex.schema.createTable('memberships', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('person_id', 40).notNullable().references('people.id').onDelete('CASCADE')
    t.string('role', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.unique(['org_id', 'person_id'])
    t.index(['person_id'])
  })
  await knex.schema.createTable('store_envs', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('name', 200).notNullable()
    t.string('plan', 16).notNullable().defaultTo('free')
    t.string('subscription_status', 16).notNullable().defaultTo('active')
    t.bigInteger('current_period_end')
    t.text('allowed_origins').notNullable()
    t.bigInteger('created_at').notNullable()
    t.index(['org_id'])
  })
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('name', 200).notNullable()
    t.string('role', 16).notNullable()
    t.text('scopes').notNullable()
    t.string('prefix', 16).notNullable()
    t.string('secret_hash', 64).notNullable().unique()
    t.bigInteger('expires_at')
    t.bigInteger('revoked_at')
    t.bigInteger('first_used_at')
    t.bigInteger('last_used_at')
    t.string('created_by', 80)
    t.bigInteger('created_at').notNullable()
    t.index(['org_id', 'created_at'])
  })
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id')
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.bigInteger('at').notNullable()
    t.string('action', 64).notNullable()
    t.string('actor', 120).notNullable()
    t.string('subject', 120)
    t.string('ip', 64)
    t.text('details')
    t.index(['org_id', 'id'])
    t.index(['org_id', 'action', 'id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['audit_log', 'api_keys', 'store_envs', 'memberships', 'people', 'organizations']) {
    await knex.schema.dropTableIfExists(table)
  }
}
