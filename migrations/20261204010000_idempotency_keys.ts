import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * The `Idempotency-Key` header (issue 47, docs/contract/api-conventions.md#idempotent-requests): one row per key an
 * organization's credentials sent in the last 24 hours, claimed by the insert the primary key makes atomic on every
 * instance. `fingerprint` is the SHA-256 of the request (method, path and query, store header, body); while the
 * request runs `state` is `running` and `token` names the claim; once answered it is `done` with the answer to replay
 * (`body` sealed with SECRET_KEY: an answer may carry a secret shown once, such as a new API key). The key itself is
 * kept as its SHA-256 (fixed length, compared exactly whatever the collation). `created_at` drives expiry (24 h) and
 * the lease after which a `running` row left by a crashed instance no longer blocks the key.
 */
export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('idempotency_keys', (t) => {
    id(t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE'))
    id(t.string('key_hash', 64).notNullable())
    id(t.string('fingerprint', 64).notNullable())
    t.string('state', 16).notNullable()
    id(t.string('token', 40).notNullable())
    t.integer('status').nullable()
    t.text('headers').nullable()
    t.text('body', 'mediumtext').nullable()
    t.bigInteger('created_at').notNullable()
    t.primary(['org_id', 'key_hash'])
    t.index(['created_at'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys')
}
