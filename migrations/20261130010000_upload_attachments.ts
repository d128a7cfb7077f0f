import type { Knex } from 'knex'

/*
 * Storefront visitors upload images and videos before they send the review or photo that uses them, and many never
 * send it: those files stayed on disk for good, at up to 20 images (10 MB each) a minute per visitor IP. An upload
 * is now marked when a review, a gallery photo or the email branding takes it, and one left unmarked for a day is
 * deleted (modules/uploads/abandoned.ts). Uploads made before this version count as used: which of them are is not
 * worth the risk of guessing.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploads', (t) => {
    t.bigInteger('attached_at').nullable()
    t.index(['attached_at', 'created_at'], 'uploads_unattached')
  })
  await knex('uploads').update({ attached_at: knex.ref('created_at') })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploads', (t) => {
    t.dropIndex(['attached_at', 'created_at'], 'uploads_unattached')
    t.dropColumn('attached_at')
  })
}
