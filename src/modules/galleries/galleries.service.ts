import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import type { Precondition } from '../../lib/conditional.js'
import { stamps, type SinceQuery } from '../../lib/content.js'
import { newId } from '../../lib/ids.js'
import { lockForWrite } from '../../lib/bulk.js'
import type { Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import { contentWriter } from '../content/index.js'
import type { StoreEnv } from '../../types.js'
import type { GalleriesRepository, GalleryFilter, GalleryRow, LeadRow, PhotoRow, PhotoStatus } from './galleries.repository.js'

export interface GalleryInput { name: string, description?: string | null, productId?: string | null, status?: GalleryRow['status'] }

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /**
     * A visitor left their address, in the lead's transaction once it is stored: the customers module makes or
     * updates the customer there (docs/contract/resources.md#customers: "the lead becomes or updates a customer").
     */
    'gallery.lead': { payload: { lead: { orgId: string, storeEnvId: string, email: string, name: string | null } } }
    /** A favourite or a first lead, in the transaction that stored it: GET /analytics/storefront counts it. */
    'gallery.engaged': { payload: { engagement: { storeEnvId: string, kind: 'favourite' | 'lead', at: number } } }
  }
}

interface Deps {
  db: Knex
  repo: GalleriesRepository
  events: EventLog
  clock: Clock
  urlOf: (uploadId: string) => string
  /** Ends uses of uploads (`photo:<id>`): one nothing else uses goes, its file once the transaction commits (modules/uploads). */
  releaseUploads?: (trx: Knex.Transaction, storeId: string, usedBy: string[]) => Promise<void>
}

export function presentGallery (row: GalleryRow) {
  return { id: row.id, name: row.name, description: row.description, productId: row.product_id, status: row.status, ...stamps(row) }
}

export function presentLead (row: LeadRow) {
  return { id: row.id, galleryId: row.gallery_id, email: row.email, name: row.name, consent: Boolean(row.consent), ...stamps(row) }
}

export function galleriesService ({ db, repo, events, clock, urlOf, releaseUploads }: Deps) {
  const writer = contentWriter({ db, events, clock, repo, singular: 'gallery', label: 'Gallery', present: presentGallery })

  function presentPhoto (row: PhotoRow) {
    return {
      id: row.id,
      galleryId: row.gallery_id,
      imageUrl: urlOf(row.upload_id),
      caption: row.caption,
      authorName: row.author_name,
      authorEmailLast4: row.author_email ? row.author_email.slice(-4) : null,
      status: row.status,
      favouriteCount: Number(row.favourite_count),
      ...stamps(row)
    }
  }

  const photoWriter = contentWriter({
    db,
    events,
    clock,
    repo: repo.photos,
    singular: 'gallery.photo',
    label: 'Photo',
    present: presentPhoto
  })

  return {
    presentPhoto,

    create (store: StoreEnv, input: GalleryInput) {
      return writer.create(store, {
        name: input.name,
        description: input.description ?? null,
        product_id: input.productId ?? null,
        status: input.status ?? 'draft'
      }, newId('gal'))
    },

    list: (storeId: string, query: GalleryFilter) => writer.list(storeId, { product_id: query.productId, status: query.status }, query),

    get: writer.get,

    update (store: StoreEnv, id: string, patch: Partial<GalleryInput>, precondition: Precondition | null = null) {
      return writer.update(store, id, {
        name: patch.name,
        description: patch.description,
        product_id: patch.productId,
        status: patch.status
      }, undefined, precondition)
    },

    /**
     * The gallery's photos, favourites and leads go with it, and so do the photos' images: their URLs were public on
     * the storefront, and a deleted gallery should not keep serving what visitors sent to it. An image a review also
     * shows (its id is public, so a review may name it) stays for the review.
     */
    remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      return writer.remove(store, id, async (_row, trx) => {
        // The gallery is held (writer.remove), so its photos read as committed are all it has.
        const photos: Array<{ id: string }> = await lockForWrite(
          trx('gallery_photos').where({ store_env_id: store.id, gallery_id: id }),
          true
        ).select('id')
        await releaseUploads?.(trx, store.id, photos.map((photo) => `photo:${photo.id}`))
      }, precondition)
    },

    async photos (storeId: string, galleryId: string, query: SinceQuery & { status?: PhotoStatus }) {
      await writer.load(storeId, galleryId)
      return photoWriter.list(storeId, { gallery_id: galleryId, status: query.status }, query)
    },

    async moderate (store: StoreEnv, galleryId: string, photoId: string, status: PhotoStatus) {
      const photo = await repo.photos.find(store.id, photoId)
      if (!photo || photo.gallery_id !== galleryId) throw new errors.NotFound('Photo')
      return photoWriter.update(store, photoId, { status })
    },

    async leads (storeId: string, galleryId: string, query: SinceQuery) {
      await writer.load(storeId, galleryId)
      return repo.leads.listWhere(storeId, { gallery_id: galleryId }, query, presentLead)
    },

    /** The evidence's gallery photos of a product (evidence.service.ts, GalleryPhotosSource): approved ones only. */
    async productPhotos (storeId: string, productId: string, limit: number) {
      const rows = await repo.productPhotos(storeId, productId, limit)
      return rows.map((row) => ({
        id: row.id,
        url: urlOf(row.upload_id),
        caption: row.caption,
        source: 'gallery' as const,
        reviewId: null
      }))
    },

    /**
     * A gallery the storefront may show and send to: published, of this store. `share`: read with a shared lock, so
     * the gallery stays until the caller's transaction (which writes a photo or lead of it) ends.
     */
    async published (storeId: string, id: string, trx?: Knex, share = false): Promise<GalleryRow> {
      const row = await repo.find(storeId, id, trx, share && 'share')
      if (!row || row.status !== 'published') throw new errors.NotFound('Gallery')
      return row
    },

    writer,
    photoWriter
  }
}
export type GalleriesService = ReturnType<typeof galleriesService>
