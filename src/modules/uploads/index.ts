import type { FastifyInstance } from 'fastify'
import { uploadsRoutes } from './uploads.routes.js'
import { videosRoutes } from './videos.routes.js'

/** Storefront image and review video uploads, stored under DATA_DIR and served back by URL. */
export default async function uploads (app: FastifyInstance) {
  await app.register(uploadsRoutes, { service: app.services.uploads })
  await app.register(videosRoutes, { service: app.services.videos })
}
