import type { Knex } from 'knex'

/*
 * Signed single-use upload URLs for review videos (issue 15, docs/contract/storefront.md#uploads): the URL's token
 * is kept only as a hash; once used (or 15 minutes on) it is refused. The stored video becomes a row of `uploads`
 * with the same id, so a review names it in `mediaIds` like an image.
 */
export async function up (knex: Knex): Promise<void> {
  let collation: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
    )
    collation = (rows as Array<{ c: string }>)[0]?.c
  }
  await knex.schema.createTable('upload_urls', (t) => {
    const exact = (column: Knex.ColumnBuilder) => (collation ? column.collate(collation) : column)
    exact(t.string('id', 40)).primary()
    exact(t.string('org_id', 40)).notNullable()
    exact(t.string('store_env_id', 40)).notNullable().references('store_envs.id').onDelete('CASCADE')
    exact(t.string('token_hash', 64)).notNullable()
    t.string('content_type', 40).notNullable()
    t.bigInteger('max_size').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.bigInteger('used_at')
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('upload_urls')
}
