import type { Knex } from 'knex'

/** Invitations to join an organization (admin application). Only a hash of the one-time link's token is kept. */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('invitations', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('email', 320).notNullable()
    t.string('role', 16).notNullable()
    t.string('token_hash', 64).notNullable().unique()
    t.string('invited_by', 80).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.bigInteger('accepted_at')
    t.bigInteger('revoked_at')
    t.index(['org_id', 'created_at'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invitations')
}
