import type { Knex } from 'knex'

/*
 * A store's own sending domain (issue 17): a DKIM key pair per domain, the private key sealed with SECRET_KEY
 * (src/lib/secrets.ts), and the last result of checking each DNS record.
 */
export async function up (knex: Knex): Promise<void> {
  let exact: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
    )
    exact = (rows as Array<{ c: string }>)[0]?.c
  }
  await knex.schema.createTable('sending_domains', (t) => {
    const store = t.string('store_env_id', 40).notNullable().primary().references('store_envs.id').onDelete('CASCADE')
    const org = t.string('org_id', 40).notNullable()
    if (exact) { store.collate(exact); org.collate(exact) }
    t.string('domain', 253).notNullable()
    t.string('selector', 63).notNullable()
    t.text('dkim_private_key').notNullable()
    t.text('dkim_public_key').notNullable()
    t.text('checks').nullable()
    t.bigInteger('verified_at').nullable()
    t.bigInteger('checked_at').nullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sending_domains')
}
