import type { FastifyInstance } from 'fastify'
import { importsRoutes } from './imports.routes.js'
import { importsPages } from './admin/imports.routes.js'
import { defineModule } from '../../lib/module.js'
import { importsRepository } from './imports.repository.js'
import { importsService, type ImportsService } from './imports.service.js'

export { importsRepository } from './imports.repository.js'
export { MAX_IMPORT_ITEMS } from './imports.schemas.js'
export { importsService, type ImportsService } from './imports.service.js'

/** Review imports from other platforms, keeping each review's original date. */
export default async function imports (app: FastifyInstance) {
  await app.register(importsRoutes, { service: app.services.imports })
}

declare module '../../lib/module.js' {
  interface Services {
    importsRepo: ReturnType<typeof importsRepository>
    imports: ImportsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { imports: true }
}

export const manifest = defineModule({
  name: 'imports',
  resources: {
    imports: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Bulk imports of reviews, products and orders.' }
  },
  services: {
    importsRepo: ({ db }) => importsRepository(db),
    imports: ({ db, importsRepo, reviewsRepo, events, clock }) =>
      importsService({ db, repo: importsRepo, reviews: reviewsRepo, events, clock })
  },
  admin: {
    pages: [importsPages],
    nav: [
      { label: 'Imports', path: '/admin/imports', resource: 'imports' }
    ]
  },
  routes: [{ plugin: imports, prefix: '/v1' }]
})
