import type { FastifyInstance } from 'fastify'
import { webPagesRoutes } from './web-pages.routes.js'
import { contentPages } from './admin/content.routes.js'
import { defineModule } from '../../lib/module.js'
import { webPagesRepository } from './web-pages.repository.js'
import { webPagesService, type WebPagesService } from './web-pages.service.js'

export { webPagesRepository } from './web-pages.repository.js'
export { webPagesService, type WebPagesService } from './web-pages.service.js'

/** The store's pages that carry widgets, keyed by URL (docs/contract/resources.md#web-pages). */
export default async function webPages (app: FastifyInstance) {
  await app.register(webPagesRoutes, { service: app.services.webPages })
}

declare module '../../lib/module.js' {
  interface Services {
    webPagesRepo: ReturnType<typeof webPagesRepository>
    webPages: WebPagesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'web-pages': true }
}

export const manifest = defineModule({
  name: 'web-pages',
  resources: {
    'web-pages': { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Hosted review and FAQ pages.' }
  },
  services: {
    webPagesRepo: ({ db }) => webPagesRepository(db),
    webPages: ({ db, webPagesRepo, events, clock, bus }) => webPagesService({ db, repo: webPagesRepo, events, clock, bus })
  },
  emits: ['web-page.deleted'],
  admin: {
    pages: [contentPages],
    nav: [
      { label: 'FAQs', path: '/admin/faqs', resource: 'faqs' },
      { label: 'Widgets', path: '/admin/web-pages', resource: 'placements' }
    ]
  },
  routes: [{ plugin: webPages, prefix: '/v1' }]
})
