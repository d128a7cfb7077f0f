import type { FastifyInstance } from 'fastify'
import { analyticsRoutes } from './analytics.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import { recordEngagement } from './rollups.js'
import { insightPages } from './admin/insight.routes.js'
import { defineModule } from '../../lib/module.js'
import { analyticsRepository } from './analytics.repository.js'
import { analyticsService, type AnalyticsService } from './analytics.service.js'

export { analyticsRepository } from './analytics.repository.js'
export { analyticsService, type AnalyticsService } from './analytics.service.js'
export { moveReviews, rebuildStore, recordEngagement, type ReviewFact, trackOrders } from './rollups.js'

/** Review, review request and storefront analytics, read from aggregates kept as data arrives (rollups.ts). */
export default async function analytics (app: FastifyInstance) {
  await app.register(analyticsRoutes, { service: app.services.analytics })
}

/** Favourites, leads and review videos count in GET /analytics/storefront, in the transaction that stored them. */
export function analyticsReactions (bus: DomainBus) {
  bus.on('gallery.engaged', (trx, { engagement }) => recordEngagement(trx, engagement))
  bus.on('video.uploaded', (trx, { engagement }) => recordEngagement(trx, engagement))
}

declare module '../../lib/module.js' {
  interface Services {
    analyticsRepo: ReturnType<typeof analyticsRepository>
    analytics: AnalyticsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { analytics: true }
}

export const manifest = defineModule({
  name: 'analytics',
  resources: {
    analytics: { read: 'viewer', write: 'admin', area: 'Insight', description: 'Review and email statistics.' }
  },
  services: {
    analyticsRepo: ({ db }) => analyticsRepository(db),
    analytics: ({ analyticsRepo, clock, freshness }) => analyticsService({ repo: analyticsRepo, clock, fresh: freshness })
  },
  reactions: analyticsReactions,
  admin: {
    pages: [insightPages],
    nav: [
      { label: 'Analytics', path: '/admin/analytics', resource: 'analytics' },
      { label: 'Evidence', path: '/admin/evidence', resource: 'evidence' }
    ]
  },
  routes: [{ plugin: analytics, prefix: '/v1' }]
})
