import type { FastifyInstance } from 'fastify'
import { receiverRoutes, platformSyncRoutes } from './platform-sync.routes.js'
import { platformWebhooksPages } from './admin/platform-webhooks.routes.js'
import { defineModule } from '../../lib/module.js'
import { BIGCOMMERCE_DEFAULTS } from '../../config.js'
import { bigcommerceApi } from './bigcommerce-api.js'
import { platformSyncRepository } from './platform-sync.repository.js'
import { platformSyncService, type PlatformSyncService } from './platform-sync.service.js'

export { bigcommerceApi } from './bigcommerce-api.js'
export { type Platform, PLATFORMS } from './platform-signatures.js'
export { platformSyncRepository } from './platform-sync.repository.js'
export { setPlatformSecret } from './platform-sync.schemas.js'
export { platformSyncService, type PlatformSyncService } from './platform-sync.service.js'

/** Inbound platform webhooks (docs/contract/resources.md#platform-sync): secrets per store, and the receivers. */
export default async function platformSync (app: FastifyInstance) {
  await app.register(platformSyncRoutes, { service: app.services.platformSync })
  await app.register(receiverRoutes, { service: app.services.platformSync })
}

declare module '../../lib/module.js' {
  interface Services {
    platformSync: PlatformSyncService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { webhooks: true }
}

export const manifest = defineModule({
  name: 'platform-sync',
  resources: {
    webhooks: {
      read: 'viewer',
      write: 'editor',
      area: 'Events & integrations',
      description: 'REST hooks and polling of events by automation platforms.'
    }
  },
  services: {
    platformSync: ({ db, events, stores, products, productsRepo, orders, audit, clock, config, log }) => platformSyncService({
      db,
      repo: platformSyncRepository(db),
      events,
      stores,
      products,
      productRows: productsRepo,
      orders,
      audit,
      clock,
      secretKey: config.secretKey,
      publicUrl: config.publicUrl,
      bigcommerce: bigcommerceApi({
        baseUrl: config.bigcommerceApiUrl ?? BIGCOMMERCE_DEFAULTS.apiUrl,
        timeoutMs: config.bigcommerceApiTimeoutMs ?? BIGCOMMERCE_DEFAULTS.timeoutMs
      }),
      log
    })
  },
  admin: {
    pages: [platformWebhooksPages],
    nav: [
      { label: 'Platform webhooks', path: '/admin/platform-webhooks', resource: 'webhooks' }
    ]
  },
  routes: [{ plugin: platformSync, prefix: '/v1' }]
})
