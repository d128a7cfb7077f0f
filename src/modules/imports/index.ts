import type { FastifyInstance } from 'fastify'
import { importsRoutes } from './imports.routes.js'

/** Review imports from other platforms, keeping each review's original date. */
export default async function imports (app: FastifyInstance) {
  await app.register(importsRoutes, { service: app.services.imports })
}
