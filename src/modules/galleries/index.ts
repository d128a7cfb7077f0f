import type { FastifyInstance } from 'fastify'
import { galleriesRoutes } from './galleries.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { GalleryVisitorsService } from './gallery-visitors.service.js'
import { defineModule } from '../../lib/module.js'

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

export const manifest = defineModule({ name: 'galleries', routes: [{ plugin: galleries, prefix: '/v1' }] })
