import type { Knex } from 'knex'

/*
 * The embedded OpenID Connect provider (docs/contract/oauth.md#provider-storage-and-keys): its models in shared storage
 * (so several instances share sessions, codes, grants and refresh tokens), its signing keys (encrypted), the registered
 * clients (secrets hashed), and our own record of each grant's organization, role and stores.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('oidc_models', (t) => {
    t.string('model', 40).notNullable()
    // sha256 of the provider's id: opaque token values are their ids, so they are never stored in the clear.
    t.string('id_hash', 64).notNullable()
    t.text('payload', 'mediumtext').notNullable()
    t.string('grant_id', 64)
    t.string('uid_hash', 64)
    t.string('user_code_hash', 64)
    t.bigInteger('consumed_at')
    t.bigInteger('expires_at')
    t.primary(['model', 'id_hash'])
    t.index(['grant_id'])
    t.index(['uid_hash'])
    t.index(['expires_at'])
  })
  await knex.schema.createTable('oidc_keys', (t) => {
    t.string('kid', 64).primary()
    t.text('sealed_jwk').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('retired_at')
    t.index(['created_at'])
  })
  await knex.schema.createTable('oauth_clients', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).references('organizations.id').onDelete('CASCADE')
    t.string('name', 200).notNullable()
    t.string('secret_hash', 64)
    t.text('redirect_uris').notNullable()
    t.boolean('public').notNullable().defaultTo(false)
    t.string('created_by', 80)
    t.bigInteger('created_at').notNullable()
    t.index(['org_id', 'created_at'])
  })
  await knex.schema.createTable('oauth_grants', (t) => {
    t.string('id', 64).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('person_id', 40).notNullable().references('people.id').onDelete('CASCADE')
    t.string('client_id', 40).notNullable()
    t.string('role', 16).notNullable()
    t.text('scopes').notNullable()
    t.text('store_ids').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('last_used_at')
    t.bigInteger('revoked_at')
    t.index(['org_id', 'created_at'])
  })
  await knex.schema.createTable('oauth_refresh_rotations', (t) => {
    t.string('old_token_hash', 64).primary()
    t.text('sealed_response').notNullable()
    t.bigInteger('rotated_at').notNullable()
    t.index(['rotated_at'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['oauth_refresh_rotations', 'oauth_grants', 'oauth_clients', 'oidc_keys', 'oidc_models']) {
    await knex.schema.dropTableIfExists(table)
  }
}
