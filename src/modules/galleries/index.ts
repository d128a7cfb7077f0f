import type { FastifyInstance } from 'fastify'
import { galleriesRoutes } from './galleries.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { GalleryVisitorsService } from './gallery-visitors.service.js'
import { defineModule } from '../../lib/module.js'
import { galleriesRepository } from './galleries.repository.js'
import { galleriesService, type GalleriesService } from './galleries.service.js'
import { galleryVisitorsService } from './gallery-visitors.service.js'

export { galleriesRepository } from './galleries.repository.js'
export { PublicGallery, PublicGalleryQuery } from './galleries.schemas.js'
export { galleriesService, type GalleriesService } from './galleries.service.js'
export { galleryVisitorsService, type GalleryVisitorsService } from './gallery-visitors.service.js'

/**
 * Galleries of visitors' photos, with moderation, favourites and a lead form (docs/contract/resources.md#galleries).
 */
export default async function galleries (app: FastifyInstance) {
  await app.register(galleriesRoutes, { service: app.services.galleries, visitors: app.services.galleryVisitors })
}

/** An erasure clears the customer's gallery leads and anonymises their photos (whose events it names back). */
export function galleriesReactions (bus: DomainBus, { galleryVisitors }: { galleryVisitors: GalleryVisitorsService }) {
  bus.on('customer.erased', (trx, { subject }) => galleryVisitors.forget(trx, subject))
}

declare module '../../lib/module.js' {
  interface Services {
    galleriesRepo: ReturnType<typeof galleriesRepository>
    galleries: GalleriesService
    galleryVisitors: GalleryVisitorsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { galleries: true }
}

export const manifest = defineModule({
  name: 'galleries',
  resources: {
    galleries: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Photo galleries built from reviews.' }
  },
  services: {
    galleriesRepo: ({ db }) => galleriesRepository(db),
    galleries: ({ db, galleriesRepo, events, clock, uploads }) =>
      galleriesService({ db, repo: galleriesRepo, events, clock, urlOf: uploads.urlOf, releaseUploads: uploads.release }),
    galleryVisitors: ({ db, galleriesRepo, galleries, clock, config, uploads, bus }) => galleryVisitorsService({
      db,
      repo: galleriesRepo,
      galleries,
      clock,
      secretKey: config.secretKey,
      storeImage: uploads.storeImage,
      attachUploads: uploads.attach,
      bus,
      releaseUploads: uploads.release
    })
  },
  emits: ['gallery.lead', 'gallery.engaged'],
  reactions: galleriesReactions,
  routes: [{ plugin: galleries, prefix: '/v1' }]
})
