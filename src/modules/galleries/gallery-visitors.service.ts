import { parseDateTime } from '../../lib/formats.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { sha256 } from '../../lib/secrets.js'
import { withDeadlockRetry } from '../../lib/bulk.js'
import { isDuplicateKey } from '../../db.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { GalleriesRepository } from './galleries.repository.js'
import { presentLead, type GalleriesService } from './galleries.service.js'

interface Deps {
  db: Knex
  repo: GalleriesRepository
  galleries: GalleriesService
  clock: Clock
  secretKey: string
  /** Stores an image checked by content (the uploads service); throws 415 for anything else. */
  storeImage: (store: StoreEnv, bytes: Buffer) => Promise<{ id: string, url: string }>
  /** Marks uploads as used in the caller's transaction (the uploads service), so the sweep of abandoned ones leaves them. */
  attachUploads: (trx: Knex.Transaction, storeId: string, ids: string[], field: string, usedBy: string) => Promise<void>
  bus: DomainBus
  /** Ends uses of uploads (an erased visitor's unpublished photos), so their images are no longer served (modules/uploads). */
  releaseUploads?: (trx: Knex.Transaction, storeId: string, usedBy: string[]) => Promise<void>
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The text without the address, in any case, as an erasure leaves review texts. */
function withoutAddress (text: string | null, address: string): string | null {
  return text == null ? text : text.replace(new RegExp(escaped(address), 'gi'), '[erased]')
}

export interface PhotoInput { caption?: string, authorName?: string, authorEmail?: string }

/** What storefront visitors do with a published gallery (docs/contract/storefront.md#storefront-writes). */
export function galleryVisitorsService ({ db, repo, galleries, clock, secretKey, storeImage, attachUploads, bus, releaseUploads }: Deps) {
  return {
    /** The gallery with a page of its approved photos, newest first; nothing of a submitter but the name. */
    async show (storeId: string, id: string, query: PageQuery & { updatedSince?: string }) {
      const gallery = await galleries.published(storeId, id)
      const page = toPage(query)
      const { total, rows } = await repo.approvedPhotos(
        storeId,
        id,
        page,
        query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      )
      const { data, meta } = envelope(
        rows.map((row) => {
          const photo = galleries.presentPhoto(row)
          return {
            id: photo.id,
            imageUrl: photo.imageUrl,
            caption: photo.caption,
            authorName: photo.authorName,
            favouriteCount: photo.favouriteCount
          }
        }),
        total,
        page
      )
      return { id: gallery.id, name: gallery.name, description: gallery.description, productId: gallery.product_id, photos: data, meta }
    },

    /** A visitor's photo waits for moderation (`pending`). The image is checked by content before anything is stored. */
    async submitPhoto (store: StoreEnv, galleryId: string, bytes: Buffer, input: PhotoInput) {
      await galleries.published(store.id, galleryId)
      const upload = await storeImage(store, bytes)
      // Checked again in the photo's transaction, holding the gallery: one deleted meanwhile is a 404, not a 500 on
      // the photo's foreign key (and the image, never attached, goes with the abandoned uploads).
      const photo = await galleries.photoWriter.create(store, {
        gallery_id: galleryId,
        upload_id: upload.id,
        caption: input.caption ?? null,
        author_name: input.authorName ?? null,
        author_email: input.authorEmail ?? null,
        status: 'pending',
        favourite_count: 0
      }, newId('gph'), async (row, trx) => {
        await galleries.published(store.id, galleryId, trx, true)
        await attachUploads(trx, store.id, [upload.id], 'image', `photo:${row.id}`)
      })
      return { id: photo.id, status: photo.status }
    },

    /**
     * One lead per address and gallery (a second sending updates the name); then the customers hook, if wired. The
     * hook writes a customer after this takes the store's event lock, the reverse of a customer sync's order, so a
     * deadlock between the two on MySQL is retried whole.
     */
    async lead (store: StoreEnv, galleryId: string, input: { email: string, name?: string }) {
      const email = input.email.trim().toLowerCase()
      const save = () =>
        withDeadlockRetry(() =>
          db.transaction(async (trx) => {
            // Holding the gallery: one deleted at the same moment is a 404, not a 500 on the lead's foreign key.
            await galleries.published(store.id, galleryId, trx, true)
            const existing = await repo.leadByEmail(store.id, galleryId, email, trx)
            const now = clock()
            const type = existing ? 'updated' : 'created'
            const row = existing
              ? { ...existing, name: input.name ?? existing.name, updated_at: now }
              : {
                  id: newId('lead'),
                  org_id: store.orgId,
                  store_env_id: store.id,
                  gallery_id: galleryId,
                  email,
                  name: input.name ?? null,
                  consent: true,
                  created_at: now,
                  updated_at: now
                }
            if (existing) await repo.leads.update(store.id, row.id, { name: row.name, updated_at: now }, trx)
            else await repo.leads.insert(row, trx)
            if (!existing) await bus.emit('gallery.engaged', trx, { engagement: { storeEnvId: store.id, kind: 'lead', at: now } })
            await galleries.writer.emit(trx, store, `lead.${type}`, presentLead(row))
            await bus.emit('gallery.lead', trx, { lead: { orgId: store.orgId, storeEnvId: store.id, email, name: row.name } })
          })
        )
      try {
        await save()
      } catch (err) {
        // One lead per address (a unique key): a writer that lost it to a concurrent first lead runs again, and
        // now finds and updates that lead.
        if (!isDuplicateKey(err)) throw err
        await save()
      }
      return { received: true as const }
    },

    /** One favourite per visitor (IP, stored only as a keyed hash) per approved photo. */
    async favourite (store: StoreEnv, galleryId: string, photoId: string, ip: string) {
      return db.transaction(async (trx) => {
        await galleries.published(store.id, galleryId, trx)
        // The photo is locked first: a favourite's insert holds a shared lock on it (foreign key) and its count's
        // update an exclusive one, so visitors favouriting it at once deadlocked on MySQL; now they take turns, and
        // each answers the count as it stands.
        const photo = await repo.photos.find(store.id, photoId, trx, true)
        if (!photo || photo.gallery_id !== galleryId || photo.status !== 'approved') throw new errors.NotFound('Photo')
        const now = clock()
        const added = await repo.favourite({
          org_id: store.orgId,
          store_env_id: store.id,
          photo_id: photoId,
          voter_hash: sha256(`${secretKey}:favourite:${ip}`),
          created_at: now
        }, trx)
        if (added) await bus.emit('gallery.engaged', trx, { engagement: { storeEnvId: store.id, kind: 'favourite', at: now } })
        return { favouriteCount: Number(photo.favourite_count) + (added ? 1 : 0) }
      })
    },

    /**
     * Customer erasure's step (docs/contract/resources.md#customers), in the erasure's transaction: the person's leads
     * are deleted, and so are the photos they sent that were never published (pending or rejected), with their images.
     * An approved photo stays, anonymised (no name, no address, the address taken out of its caption): like a review,
     * it is content the merchant chose to publish and shoppers favourited, and without the name and address nothing of
     * it says who sent it. Answers the photos' ids: their logged events carry the author's name, which the erasure then
     * clears there as well.
     */
    async forget (trx: Knex.Transaction, subject: { storeEnvId: string, email: string | null }) {
      if (!subject.email) return { eventSubjects: [] }
      const storeId = subject.storeEnvId
      const email = subject.email.trim().toLowerCase()
      const { leads, photos } = await repo.byVisitor(storeId, email, trx)
      for (const id of leads) await repo.leads.remove(storeId, id, trx)
      const now = clock()
      const unpublished = photos.filter((photo) => photo.status !== 'approved')
      for (const photo of photos) {
        if (photo.status !== 'approved') await repo.photos.remove(storeId, photo.id, trx)
        else {
          await repo.photos.update(storeId, photo.id, {
            author_name: null,
            author_email: null,
            caption: withoutAddress(photo.caption, email),
            updated_at: now
          }, trx)
        }
      }
      if (unpublished.length) await releaseUploads?.(trx, storeId, unpublished.map((photo) => `photo:${photo.id}`))
      return { eventSubjects: photos.map((photo) => photo.id) }
    }
  }
}
export type GalleryVisitorsService = ReturnType<typeof galleryVisitorsService>
