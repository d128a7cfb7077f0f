import type { FastifyInstance } from 'fastify'
import { uploadsRoutes } from './uploads.routes.js'

/** Storefront image uploads, stored under DATA_DIR and served back by URL. */
export default async function uploads (app: FastifyInstance) {
  await app.register(uploadsRoutes, { service: app.services.uploads })
}
