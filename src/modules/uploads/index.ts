import type { FastifyInstance } from 'fastify'
import { uploadsRoutes } from './uploads.routes.js'
import { videosRoutes } from './videos.routes.js'
import { defineModule } from '../../lib/module.js'

export { abandonedUploads } from './abandoned.js'
export { readImagePart, type TextPart } from './multipart.js'
export { type BlobStorage, localDiskStorage, uploadKey } from './storage.js'
export { uploadsRepository } from './uploads.repository.js'
export { MAX_IMAGE_BYTES, uploadsService, type UploadsService } from './uploads.service.js'
export { videosService } from './videos.service.js'

/** Storefront image and review video uploads, stored under DATA_DIR and served back by URL. */
export default async function uploads (app: FastifyInstance) {
  await app.register(uploadsRoutes, { service: app.services.uploads })
  await app.register(videosRoutes, { service: app.services.videos })
}

export const manifest = defineModule({ name: 'uploads', routes: [{ plugin: uploads, prefix: '/v1' }] })
