import type { FastifyInstance } from 'fastify'
import { featuresRoutes } from './features.routes.js'
import { defineModule } from '../../lib/module.js'
import { featuresRepository } from './features.repository.js'
import { featuresService, type FeaturesService } from './features.service.js'

export { featuresRepository } from './features.repository.js'
export { featuresService, type FeaturesService } from './features.service.js'

/** The store's entitlements by plan, with operator overrides (docs/contract/plans-and-limits.md#features). */
export default async function features (app: FastifyInstance) {
  await app.register(featuresRoutes, { service: app.services.features })
}

declare module '../../lib/module.js' {
  interface Services {
    features: FeaturesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { features: true }
}

export const manifest = defineModule({
  name: 'features',
  resources: {
    features: { read: 'viewer', write: 'admin', area: 'Insight', description: 'Which features and plan limits the store has.' }
  },
  services: {
    features: ({ db, stores, clock, freshness }) => featuresService({ repo: featuresRepository(db), stores, clock, fresh: freshness })
  },
  routes: [{ plugin: features, prefix: '/v1' }]
})
