import type { FastifyInstance } from 'fastify'
import { importsRoutes } from './imports.routes.js'
import { defineModule } from '../../lib/module.js'

export { importsRepository } from './imports.repository.js'
export { MAX_IMPORT_ITEMS } from './imports.schemas.js'
export { importsService, type ImportsService } from './imports.service.js'

/** Review imports from other platforms, keeping each review's original date. */
export default async function imports (app: FastifyInstance) {
  await app.register(importsRoutes, { service: app.services.imports })
}

export const manifest = defineModule({ name: 'imports', routes: [{ plugin: imports, prefix: '/v1' }] })
