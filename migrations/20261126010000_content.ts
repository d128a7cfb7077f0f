import type { Knex } from 'knex'

/*
 * On-site content (issue 15, docs/contract/resources.md#content): galleries with their visitor photos, favourites and
 * leads, FAQs, categories (products list theirs in `category_ids`), web pages and the widget placements on them.
 * Every table carries org and store ids; lists read (store_env_id, updated_at, id) for `updatedSince`.
 *
 * Identifier columns compare exactly on MySQL, like every other table's since 20261124010000_input_limits.ts: that
 * migration changed the columns that existed then, so the ones made here take the same collation when created (a
 * foreign key to store_envs.id also needs it to match).
 */
const IDENTIFIER = /^(id|.+_id|.+_hash)$/

async function exactCollation (knex: Knex): Promise<string | undefined> {
  if (knex.client.config.client !== 'mysql2') return undefined
  const [rows] = await knex.raw(
    'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'store_envs\' AND COLUMN_NAME = \'id\''
  )
  return (rows as Array<{ c: string }>)[0]?.c
}

type Columns = (t: Knex.CreateTableBuilder, id: (name: string, length?: number) => Knex.ColumnBuilder) => void

/** A tenant table: its id columns made through `id()` take the exact collation. */
function table (knex: Knex, collation: string | undefined, name: string, columns: Columns) {
  return knex.schema.createTable(name, (t) => {
    const id = (column: string, length = 40) => {
      const built = t.string(column, length)
      if (collation && IDENTIFIER.test(column)) built.collate(collation)
      return built
    }
    id('org_id').notNullable()
    id('store_env_id').notNullable().references('store_envs.id').onDelete('CASCADE')
    columns(t, id)
    t.index(['org_id'])
  })
}

export async function up (knex: Knex): Promise<void> {
  const c = await exactCollation(knex)
  await table(knex, c, 'galleries', (t, id) => {
    id('id').primary()
    t.string('name', 200).notNullable()
    t.text('description')
    id('product_id', 191)
    t.string('status', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'updated_at', 'id'])
  })
  await table(knex, c, 'gallery_photos', (t, id) => {
    id('id').primary()
    id('gallery_id').notNullable().references('galleries.id').onDelete('CASCADE')
    id('upload_id').notNullable()
    t.string('caption', 500)
    t.string('author_name', 200)
    t.string('author_email', 320)
    t.string('status', 16).notNullable()
    t.integer('favourite_count').notNullable().defaultTo(0)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'gallery_id', 'updated_at', 'id'])
    t.index(['store_env_id', 'gallery_id', 'status', 'created_at'])
  })
  await table(knex, c, 'gallery_favourites', (t, id) => {
    id('photo_id').notNullable().references('gallery_photos.id').onDelete('CASCADE')
    id('voter_hash', 64).notNullable()
    t.bigInteger('created_at').notNullable()
    t.primary(['photo_id', 'voter_hash'])
    t.index(['store_env_id'])
  })
  await table(knex, c, 'gallery_leads', (t, id) => {
    id('id').primary()
    id('gallery_id').notNullable().references('galleries.id').onDelete('CASCADE')
    t.string('email', 320).notNullable()
    t.string('name', 200)
    t.boolean('consent').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'gallery_id', 'updated_at', 'id'])
  })
  await table(knex, c, 'categories', (t, id) => {
    id('id').primary()
    t.string('name', 200).notNullable()
    t.string('slug', 191).notNullable()
    id('parent_id')
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'slug'])
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['store_env_id', 'parent_id'])
  })
  await table(knex, c, 'faqs', (t, id) => {
    id('id').primary()
    t.string('question', 500).notNullable()
    t.text('answer').notNullable()
    id('product_id', 191)
    id('category_id')
    t.string('status', 16).notNullable()
    t.integer('position').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['store_env_id', 'product_id', 'status', 'position'])
  })
  await table(knex, c, 'web_pages', (t, id) => {
    id('id').primary()
    t.text('url').notNullable()
    // A 2,048-character URL is too long for a unique index; its SHA-256 is unique instead.
    id('url_hash', 64).notNullable()
    t.string('title', 300)
    t.string('type', 16).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['store_env_id', 'url_hash'])
    t.index(['store_env_id', 'updated_at', 'id'])
  })
  await table(knex, c, 'placements', (t, id) => {
    id('id').primary()
    id('web_page_id').notNullable().references('web_pages.id').onDelete('CASCADE')
    t.string('widget', 16).notNullable()
    t.string('selector', 300).notNullable()
    t.text('settings').notNullable()
    t.boolean('enabled').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['store_env_id', 'web_page_id'])
  })
  await knex.schema.alterTable('products', (t) => {
    t.text('category_ids')
  })
  // Published reviews per product and rating, kept with review_tallies in each review write: the storefront summary
  // and review count of a product with many reviews read at most five rows.
  await knex.schema.createTable('product_review_tallies', (t) => {
    const store = t.string('store_env_id', 40).notNullable()
    const product = t.string('product_id', 191).notNullable()
    if (c) { store.collate(c); product.collate(c) }
    t.tinyint('rating').notNullable()
    t.bigInteger('n').notNullable()
    t.primary(['store_env_id', 'product_id', 'rating'])
  })
  await knex.raw(
    'INSERT INTO product_review_tallies (store_env_id, product_id, rating, n) SELECT store_env_id, product_id, rating, COUNT(*) FROM reviews WHERE status = \'published\' GROUP BY store_env_id, product_id, rating'
  )
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('product_review_tallies')
  await knex.schema.alterTable('products', (t) => {
    t.dropColumn('category_ids')
  })
  for (
    const name of ['placements', 'web_pages', 'faqs', 'categories', 'gallery_leads', 'gallery_favourites', 'gallery_photos', 'galleries']
  ) {
    await knex.schema.dropTableIfExists(name)
  }
}
