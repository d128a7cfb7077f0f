import type { FastifyInstance } from 'fastify'
import { galleriesRoutes } from './galleries.routes.js'

export { galleriesRepository } from './galleries.repository.js'
export { PublicGallery, PublicGalleryQuery } from './galleries.schemas.js'
export { galleriesService, type GalleriesService, type OnEngagement, type OnLead } from './galleries.service.js'
export { galleryVisitorsService, type GalleryVisitorsService } from './gallery-visitors.service.js'

/**
 * Galleries of visitors' photos, with moderation, favourites and a lead form (docs/contract/resources.md#galleries).
 */
export default async function galleries (app: FastifyInstance) {
  await app.register(galleriesRoutes, { service: app.services.galleries, visitors: app.services.galleryVisitors })
}
