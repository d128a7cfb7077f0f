import type { Knex } from 'knex'
import { contentTable, type ContentRow, type SinceQuery } from '../../lib/content.js'
import { countAndPage } from '../../lib/pagination.js'
import { isDuplicateKey } from '../../db.js'

export type PhotoStatus = 'pending' | 'approved' | 'rejected'

export interface GalleryRow extends ContentRow {
  name: string
  description: string | null
  product_id: string | null
  status: 'draft' | 'published'
}

export interface PhotoRow extends ContentRow {
  gallery_id: string
  upload_id: string
  caption: string | null
  author_name: string | null
  author_email: string | null
  status: PhotoStatus
  favourite_count: number
}

export interface LeadRow extends ContentRow { gallery_id: string, email: string, name: string | null, consent: boolean | number }

export interface GalleryFilter extends SinceQuery { productId?: string, status?: GalleryRow['status'] }

export function galleriesRepository (db: Knex) {
  const table = contentTable<GalleryRow>(db, 'galleries')
  const photos = contentTable<PhotoRow>(db, 'gallery_photos')
  const leads = contentTable<LeadRow>(db, 'gallery_leads')
  return {
    ...table,
    photos,
    leads,

    /** The storefront page of a gallery's approved photos, newest first. */
    approvedPhotos (storeId: string, galleryId: string, page: { offset: number, limit: number }, updatedSince: number | null = null) {
      const base = photos.base(storeId).where({ gallery_id: galleryId, status: 'approved' })
      if (updatedSince !== null) base.where('updated_at', '>=', updatedSince)
      return countAndPage<PhotoRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
    },

    /**
     * The newest approved photos of a product's published galleries (the product's evidence). Its galleries first:
     * a store has few per product, so the photo read then uses (store_env_id, gallery_id, status, created_at).
     */
    async productPhotos (storeId: string, productId: string, limit: number): Promise<PhotoRow[]> {
      const galleries = await table.base(storeId).where({ product_id: productId, status: 'published' }).pluck('id')
      if (galleries.length === 0) return []
      return photos.base(storeId).whereIn('gallery_id', galleries).where({ status: 'approved' })
        .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit) as unknown as Promise<PhotoRow[]>
    },

    /** What a visitor left under an address (erasure): leads are stored lower-cased, photo addresses as sent. */
    async byVisitor (storeId: string, email: string, trx: Knex) {
      const leads: string[] = await trx('gallery_leads').where({ store_env_id: storeId, email }).pluck('id')
      const sent: PhotoRow[] = await trx<PhotoRow>('gallery_photos').where({ store_env_id: storeId }).whereRaw('lower(author_email) = ?', [
        email
      ])
      return { leads, photos: sent }
    },

    leadByEmail (storeId: string, galleryId: string, email: string, trx: Knex): Promise<LeadRow | undefined> {
      return trx<LeadRow>('gallery_leads').where({ store_env_id: storeId, gallery_id: galleryId, email }).first() as Promise<
        LeadRow | undefined
      >
    },

    /** True only for a visitor's first favourite of the photo; the count moves in the same transaction. */
    async favourite (
      row: { org_id: string, store_env_id: string, photo_id: string, voter_hash: string, created_at: number },
      trx: Knex
    ): Promise<boolean> {
      const key = { photo_id: row.photo_id, voter_hash: row.voter_hash }
      if (await trx('gallery_favourites').where(key).first('photo_id')) return false
      try {
        await trx('gallery_favourites').insert(row)
      } catch (err) {
        // A concurrent first favourite from the same visitor won the primary key.
        if (isDuplicateKey(err)) return false
        throw err
      }
      await trx('gallery_photos').where({ store_env_id: row.store_env_id, id: row.photo_id }).increment('favourite_count', 1)
      return true
    }
  }
}
export type GalleriesRepository = ReturnType<typeof galleriesRepository>
