import type { FastifyInstance } from 'fastify'
import { storefrontRoutes } from './storefront.routes.js'
import { widgetRoutes } from './widget.routes.js'
import { defineModule } from '../../lib/module.js'
import { storefrontService } from './storefront.service.js'

export { storefrontService } from './storefront.service.js'

export { widgetRoutes as widget }

/** What the storefront widget reads (docs/contract/storefront.md#widget-reads): no key, origin-checked, cacheable. */
export default async function storefront (app: FastifyInstance) {
  const s = app.services
  await app.register(storefrontRoutes, { storefront: s.storefront, galleries: s.galleryVisitors, faqs: s.faqs, placements: s.placements })
}

declare module '../../lib/module.js' {
  interface Services {
    storefront: ReturnType<typeof storefrontService>
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { storefront: true }
}

export const manifest = defineModule({
  name: 'storefront',
  resources: {
    storefront: { read: 'viewer', write: 'admin', area: 'Events & integrations', description: 'Storefront widget settings.' }
  },
  services: { storefront: ({ reviewsRepo }) => storefrontService({ reviews: reviewsRepo }) },
  routes: [{ plugin: storefront, prefix: '/v1' }, { plugin: widgetRoutes }]
})
