import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { sha256 } from '../../lib/secrets.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { GalleriesRepository } from './galleries.repository.js'
import { presentLead, type GalleriesService, type OnEngagement, type OnLead } from './galleries.service.js'

interface Deps {
  db: Knex
  repo: GalleriesRepository
  galleries: GalleriesService
  clock: Clock
  secretKey: string
  /** Stores an image checked by content (the uploads service); throws 415 for anything else. */
  storeImage: (store: StoreEnv, bytes: Buffer) => Promise<{ id: string, url: string }>
  onLead?: OnLead
  onEngagement?: OnEngagement
}

export interface PhotoInput { caption?: string, authorName?: string, authorEmail?: string }

/** What storefront visitors do with a published gallery (decisions.md section 15, "Storefront"). */
export function galleryVisitorsService ({ db, repo, galleries, clock, secretKey, storeImage, onLead, onEngagement }: Deps) {
  return {
    /** The gallery with a page of its approved photos, newest first; nothing of a submitter but the name. */
    async show (storeId: string, id: string, query: PageQuery) {
      const gallery = await galleries.published(storeId, id)
      const page = toPage(query)
      const { total, rows } = await repo.approvedPhotos(storeId, id, page)
      const { data, meta } = envelope(rows.map((row) => {
        const photo = galleries.presentPhoto(row)
        return { id: photo.id, imageUrl: photo.imageUrl, caption: photo.caption, authorName: photo.authorName, favouriteCount: photo.favouriteCount }
      }), total, page)
      return { id: gallery.id, name: gallery.name, description: gallery.description, productId: gallery.product_id, photos: data, meta }
    },

    /** A visitor's photo waits for moderation (`pending`). The image is checked by content before anything is stored. */
    async submitPhoto (store: StoreEnv, galleryId: string, bytes: Buffer, input: PhotoInput) {
      await galleries.published(store.id, galleryId)
      const upload = await storeImage(store, bytes)
      const photo = await galleries.photoWriter.create(store, {
        gallery_id: galleryId,
        upload_id: upload.id,
        caption: input.caption ?? null,
        author_name: input.authorName ?? null,
        author_email: input.authorEmail ?? null,
        status: 'pending',
        favourite_count: 0
      }, newId('gph'))
      return { id: photo.id, status: photo.status }
    },

    /** One lead per address and gallery (a second sending updates the name); then the customers hook, if wired. */
    async lead (store: StoreEnv, galleryId: string, input: { email: string, name?: string }) {
      const email = input.email.trim().toLowerCase()
      await db.transaction(async (trx) => {
        await galleries.published(store.id, galleryId, trx)
        const existing = await repo.leadByEmail(store.id, galleryId, email, trx)
        const now = clock()
        const type = existing ? 'updated' : 'created'
        const row = existing
          ? { ...existing, name: input.name ?? existing.name, updated_at: now }
          : { id: newId('lead'), org_id: store.orgId, store_env_id: store.id, gallery_id: galleryId, email, name: input.name ?? null, consent: true, created_at: now, updated_at: now }
        if (existing) await repo.leads.update(store.id, row.id, { name: row.name, updated_at: now }, trx)
        else await repo.leads.insert(row, trx)
        if (!existing) await onEngagement?.(trx, { storeEnvId: store.id, kind: 'lead', at: now })
        await galleries.writer.emit(trx, store, `lead.${type}`, presentLead(row))
        await onLead?.(trx, { orgId: store.orgId, storeEnvId: store.id, email, name: row.name })
      })
      return { received: true as const }
    },

    /** One favourite per visitor (IP, stored only as a keyed hash) per approved photo. */
    async favourite (store: StoreEnv, galleryId: string, photoId: string, ip: string) {
      return db.transaction(async (trx) => {
        await galleries.published(store.id, galleryId, trx)
        const photo = await repo.photos.find(store.id, photoId, trx)
        if (!photo || photo.gallery_id !== galleryId || photo.status !== 'approved') throw new errors.NotFound('Photo')
        const now = clock()
        const added = await repo.favourite({ org_id: store.orgId, store_env_id: store.id, photo_id: photoId, voter_hash: sha256(`${secretKey}:favourite:${ip}`), created_at: now }, trx)
        if (added) await onEngagement?.(trx, { storeEnvId: store.id, kind: 'favourite', at: now })
        return { favouriteCount: Number(photo.favourite_count) + (added ? 1 : 0) }
      })
    }
  }
}
export type GalleryVisitorsService = ReturnType<typeof galleryVisitorsService>
