import type { Knex } from 'knex'

/*
 * Store backups (issue 18): one row per export, built in the background by whichever instance claims it, the file
 * under DATA_DIR/backups/<store>/; and one row per restore of a backup into a store, so a repeated restore answers
 * with the first one's result instead of refusing the now non-empty store.
 */
async function exactCollation (knex: Knex): Promise<string | undefined> {
  if (knex.client.config.client !== 'mysql2') return undefined
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'reviews\' AND COLUMN_NAME = \'id\''
  )
  return (rows as Array<{ c: string }>)[0]?.c
}

export async function up (knex: Knex): Promise<void> {
  const collation = await exactCollation(knex)
  const id = (t: Knex.CreateTableBuilder, name: string) => {
    const column = t.string(name, 40)
    if (collation) column.collate(collation)
    return column
  }
  await knex.schema.createTable('backups', (t) => {
    id(t, 'id').primary()
    id(t, 'org_id').notNullable()
    id(t, 'store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    t.string('status', 16).notNullable() // queued | running | completed | failed
    t.bigInteger('size')
    t.string('checksum', 64)
    t.string('path', 300)
    t.text('counts')
    t.string('error', 500)
    id(t, 'claim_token')
    t.bigInteger('claimed_at')
    t.string('created_by', 80)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('completed_at')
    t.index(['store_env_id', 'created_at'])
    t.index(['status', 'created_at'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('backup_restores', (t) => {
    id(t, 'backup_id').notNullable().references('backups.id').onDelete('CASCADE')
    id(t, 'org_id').notNullable()
    id(t, 'store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    t.text('counts').notNullable()
    t.string('created_by', 80)
    t.bigInteger('created_at').notNullable()
    t.primary(['backup_id', 'store_env_id'])
    t.index(['store_env_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('backup_restores')
  await knex.schema.dropTableIfExists('backups')
}
