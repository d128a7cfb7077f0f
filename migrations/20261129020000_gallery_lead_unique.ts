import type { Knex } from 'knex'

/*
 * A gallery keeps one lead per address (the lead form updates the earlier one), but the service only looked before
 * it wrote: one address sent from several visitors at once made several leads. The lookup index becomes unique, so
 * the second writer fails and then updates the first's lead; leads already doubled are merged first, keeping one
 * per (store, gallery, address).
 */
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM gallery_leads WHERE id NOT IN (
    SELECT id FROM (SELECT MIN(id) AS id FROM gallery_leads GROUP BY store_env_id, gallery_id, email) AS kept)`)
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.unique(['store_env_id', 'gallery_id', 'email'], { indexName: 'gallery_leads_store_gallery_email_unique' })
  })
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.dropIndex(['store_env_id', 'gallery_id', 'email'], 'gallery_leads_store_gallery_email')
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.index(['store_env_id', 'gallery_id', 'email'], 'gallery_leads_store_gallery_email')
  })
  await knex.schema.alterTable('gallery_leads', (t) => {
    t.dropUnique(['store_env_id', 'gallery_id', 'email'], 'gallery_leads_store_gallery_email_unique')
  })
}
