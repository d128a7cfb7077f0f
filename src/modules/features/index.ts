import type { FastifyInstance } from 'fastify'
import { featuresRoutes } from './features.routes.js'
import { defineModule } from '../../lib/module.js'

export { featuresRepository } from './features.repository.js'
export { featuresService, type FeaturesService } from './features.service.js'

/** The store's entitlements by plan, with operator overrides (docs/contract/plans-and-limits.md#features). */
export default async function features (app: FastifyInstance) {
  await app.register(featuresRoutes, { service: app.services.features })
}

export const manifest = defineModule({ name: 'features', routes: [{ plugin: features, prefix: '/v1' }] })
