import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * Which review, gallery photo or branding uses which upload. An upload's id is public (its URL), so a review may name
 * a gallery photo's image in its mediaIds: deleting a gallery deleted that image under the review, and a deleted
 * review left its own images on disk for good. An upload now goes when its last use does (modules/uploads,
 * `release`). The uses existing rows make are recorded here; uploads nothing records a use of keep their
 * `attached_at` and stay, as before.
 */
const BATCH = 1000

export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('upload_uses', (t) => {
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    // `review:<id>`, `photo:<id>` or `branding`: what uses the upload, within the store.
    id(t.string('used_by', 64).notNullable())
    id(t.string('upload_id', 40).notNullable().references('uploads.id').onDelete('CASCADE'))
    t.primary(['store_env_id', 'used_by', 'upload_id'])
    t.index(['upload_id'])
  })

  const uses: Array<{ store_env_id: string, used_by: string, upload_id: string }> = []
  const flush = async (force = false) => {
    if (uses.length && (force || uses.length >= BATCH)) {
      // Only uploads that still exist: a use naming a missing one would break the foreign key.
      const known = new Set(
        (await knex('uploads').whereIn('id', [...new Set(uses.map((u) => u.upload_id))]).select('id')).map((r: { id: string }) => r.id)
      )
      const kept = uses.filter((u) => known.has(u.upload_id))
      if (kept.length) await knex('upload_uses').insert(kept).onConflict(['store_env_id', 'used_by', 'upload_id']).ignore()
      uses.length = 0
    }
  }

  for (let after = ''; ;) {
    const rows: Array<{ id: string, store_env_id: string, media: string }> = await knex('reviews')
      .where('id', '>', after).whereNot('media', '[]').orderBy('id').limit(BATCH).select('id', 'store_env_id', 'media')
    if (!rows.length) break
    for (const row of rows) {
      let media: unknown
      try { media = JSON.parse(row.media) } catch { media = [] }
      for (const item of Array.isArray(media) ? media : []) {
        const uploadId = (item as { id?: unknown })?.id
        if (typeof uploadId === 'string') uses.push({ store_env_id: row.store_env_id, used_by: `review:${row.id}`, upload_id: uploadId })
      }
      await flush()
    }
    after = rows[rows.length - 1].id
  }
  for (let after = ''; ;) {
    const rows: Array<{ id: string, store_env_id: string, upload_id: string }> = await knex('gallery_photos')
      .where('id', '>', after).orderBy('id').limit(BATCH).select('id', 'store_env_id', 'upload_id')
    if (!rows.length) break
    for (const row of rows) uses.push({ store_env_id: row.store_env_id, used_by: `photo:${row.id}`, upload_id: row.upload_id })
    await flush()
    after = rows[rows.length - 1].id
  }
  const logos: Array<{ store_env_id: string, logo_upload_id: string }> = await knex('email_branding').whereNotNull('logo_upload_id').select(
    'store_env_id',
    'logo_upload_id'
  )
  for (const row of logos) uses.push({ store_env_id: row.store_env_id, used_by: 'branding', upload_id: row.logo_upload_id })
  await flush(true)
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTable('upload_uses')
}
