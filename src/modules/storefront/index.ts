import type { FastifyInstance } from 'fastify'
import { storefrontRoutes } from './storefront.routes.js'
import { widgetRoutes } from './widget.routes.js'
import { defineModule } from '../../lib/module.js'

export { storefrontService } from './storefront.service.js'

export { widgetRoutes as widget }

/** What the storefront widget reads (docs/contract/storefront.md#widget-reads): no key, origin-checked, cacheable. */
export default async function storefront (app: FastifyInstance) {
  const s = app.services
  await app.register(storefrontRoutes, { storefront: s.storefront, galleries: s.galleryVisitors, faqs: s.faqs, placements: s.placements })
}

export const manifest = defineModule({ name: 'storefront', routes: [{ plugin: storefront, prefix: '/v1' }, { plugin: widgetRoutes }] })
