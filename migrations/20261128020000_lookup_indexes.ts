import type { Knex } from 'knex'

/*
 * Two lookups that read through a store's rows for want of an index (a query-plan audit found them):
 * - a loyalty referral asks whether the address has ordered before: orders by customer address. The address is
 *   compared without regard to case, as the query always did (lower(…) = key): MySQL's column collation already
 *   ignores case, so a plain index serves it there; SQLite gets the index in NOCASE to match its query.
 * - a gallery lead form finds the visitor's earlier lead of the gallery by address (stored lower-cased).
 */
export async function up (knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('orders', (t) => { t.index(['store_env_id', 'customer_email'], 'orders_store_customer_email') })
  } else {
    await knex.raw('CREATE INDEX orders_store_customer_email ON orders (store_env_id, customer_email COLLATE NOCASE)')
  }
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.index(['store_env_id', 'gallery_id', 'email'], 'gallery_leads_store_gallery_email')
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.dropIndex(['store_env_id', 'gallery_id', 'email'], 'gallery_leads_store_gallery_email')
  })
  await knex.schema.alterTable('orders', (t) => {
    t.dropIndex(['store_env_id', 'customer_email'], 'orders_store_customer_email')
  })
}
