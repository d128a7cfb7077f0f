import type { FastifyInstance } from 'fastify'
import { webPagesRoutes } from './web-pages.routes.js'
import { defineModule } from '../../lib/module.js'

export { webPagesRepository } from './web-pages.repository.js'
export { webPagesService, type WebPagesService } from './web-pages.service.js'

/** The store's pages that carry widgets, keyed by URL (docs/contract/resources.md#web-pages). */
export default async function webPages (app: FastifyInstance) {
  await app.register(webPagesRoutes, { service: app.services.webPages })
}

export const manifest = defineModule({ name: 'web-pages', routes: [{ plugin: webPages, prefix: '/v1' }] })
