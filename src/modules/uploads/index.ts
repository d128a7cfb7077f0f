import type { FastifyInstance } from 'fastify'
import { uploadsRoutes } from './uploads.routes.js'
import { videosRoutes } from './videos.routes.js'
import { defineModule } from '../../lib/module.js'
import { abandonedUploads } from './abandoned.js'
import { type BlobStorage, localDiskStorage } from './storage.js'
import { uploadsRepository } from './uploads.repository.js'
import { uploadsService, type UploadsService } from './uploads.service.js'
import { videosService } from './videos.service.js'

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

declare module '../../lib/module.js' {
  interface Services {
    uploadsRepo: ReturnType<typeof uploadsRepository>
    storage: BlobStorage
    uploads: UploadsService
    /** Deletes uploads nothing took within a day (abandoned.ts); the jobs run it hourly. */
    abandonedUploads: ReturnType<typeof abandonedUploads>
    videos: ReturnType<typeof videosService>
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { uploads: true }
}

export const manifest = defineModule({
  name: 'uploads',
  resources: {
    uploads: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Images uploaded with reviews.' }
  },
  services: {
    uploadsRepo: ({ db }) => uploadsRepository(db),
    storage: ({ config }) => localDiskStorage(config.dataDir),
    uploads: ({ uploadsRepo, storage, config, clock, log }) =>
      uploadsService({ repo: uploadsRepo, storage, publicUrl: config.publicUrl, clock, warn: (obj, msg) => log.warn(obj, msg) }),
    abandonedUploads: ({ db, uploadsRepo, storage, clock, log }) =>
      abandonedUploads({ db, repo: uploadsRepo, storage, clock, warn: (obj, msg) => log.warn(obj, msg) }),
    videos: ({ db, uploadsRepo, storage, clock, config, bus }) =>
      videosService({ db, uploads: uploadsRepo, storage, clock, publicUrl: config.publicUrl, bus })
  },
  emits: ['video.uploaded'],
  routes: [{ plugin: uploads, prefix: '/v1' }]
})
