import type { FastifyInstance } from 'fastify'
import { galleriesRoutes } from './galleries.routes.js'

/** Galleries of visitors' photos, with moderation, favourites and a lead form (decisions.md section 15). */
export default async function galleries (app: FastifyInstance) {
  await app.register(galleriesRoutes, { service: app.services.galleries, visitors: app.services.galleryVisitors })
}
