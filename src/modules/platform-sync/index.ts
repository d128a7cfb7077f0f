import type { FastifyInstance } from 'fastify'
import { receiverRoutes, platformSyncRoutes } from './platform-sync.routes.js'
import { defineModule } from '../../lib/module.js'

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

export const manifest = defineModule({ name: 'platform-sync', routes: [{ plugin: platformSync, prefix: '/v1' }] })
