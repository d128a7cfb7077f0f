import type { FastifyInstance } from 'fastify'
import { uploadsRepository } from './uploads.repository.js'
import { uploadsService } from './uploads.service.js'
import { uploadsRoutes } from './uploads.routes.js'

export function uploadsServiceFor (app: FastifyInstance) {
  return uploadsService({ repo: uploadsRepository(app.db), dataDir: app.config.dataDir, publicUrl: app.config.publicUrl, clock: app.clock })
}

/** Storefront image uploads, stored under DATA_DIR and served back by URL. */
export default async function uploads (app: FastifyInstance) {
  await app.register(uploadsRoutes, { service: uploadsServiceFor(app) })
}
