import type { Knex } from 'knex'

/*
 * Email that stores can trust (issue 17, docs/contract/resources.md#email): the message log, the suppression list,
 * the templates and the branding of each store. On MySQL the identifier columns and the email address compare
 * exactly (binary collation, as migrations/20261124010000_input_limits.ts made every other id): addresses are stored
 * lower-cased, and `a@x.test` must never match `á@x.test` on a suppression lookup.
 */
export async function up (knex: Knex): Promise<void> {
  // The collation store_envs.id was given (a foreign key needs the same one), used for every exact column here.
  let exact: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
    )
    exact = (rows as Array<{ c: string }>)[0]?.c
  }
  const id = (t: Knex.CreateTableBuilder, name: string, size: number) => {
    const column = t.string(name, size)
    if (exact) column.collate(exact)
    return column
  }

  await knex.schema.createTable('email_messages', (t) => {
    t.bigIncrements('id')
    id(t, 'org_id', 40).notNullable()
    // Null for organization mail (invitations), which belongs to no store.
    id(t, 'store_env_id', 40).nullable()
    id(t, 'to', 320).notNullable()
    t.string('subject', 300).notNullable()
    t.string('kind', 40).notNullable()
    t.string('status', 16).notNullable()
    t.string('reason', 1000).nullable()
    id(t, 'unsubscribe_token_hash', 64).nullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'id'])
    t.index(['store_env_id', 'updated_at'])
    t.index(['org_id'])
    t.unique(['unsubscribe_token_hash'])
  })

  await knex.schema.createTable('email_suppressions', (t) => {
    id(t, 'org_id', 40).notNullable()
    id(t, 'store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE')
    id(t, 'email', 320).notNullable()
    t.string('reason', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['store_env_id', 'email'])
    t.index(['store_env_id', 'updated_at'])
    t.index(['org_id'])
  })

  await knex.schema.createTable('email_templates', (t) => {
    id(t, 'org_id', 40).notNullable()
    id(t, 'store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE')
    id(t, 'template_key', 40).notNullable()
    t.string('subject', 300).notNullable()
    t.text('body').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['store_env_id', 'template_key'])
    t.index(['org_id'])
  })

  await knex.schema.createTable('email_branding', (t) => {
    id(t, 'org_id', 40).notNullable()
    id(t, 'store_env_id', 40).notNullable().primary().references('store_envs.id').onDelete('CASCADE')
    t.string('from_name', 100).nullable()
    id(t, 'logo_upload_id', 40).nullable()
    t.string('primary_color', 7).nullable()
    t.string('footer_text', 1000).nullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['org_id'])
  })

  // The local outbox keeps what SMTP would have carried: the HTML part and the headers (List-Unsubscribe).
  await knex.schema.alterTable('mail_outbox', (t) => {
    if (exact) {
      t.specificType('html', 'MEDIUMTEXT').nullable()
    } else {
      t.text('html').nullable()
    }
    t.text('headers').nullable()
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('html')
    t.dropColumn('headers')
  })
  for (const table of ['email_branding', 'email_templates', 'email_suppressions', 'email_messages']) {
    await knex.schema.dropTableIfExists(table)
  }
}
