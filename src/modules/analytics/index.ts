import type { FastifyInstance } from 'fastify'
import { analyticsRoutes } from './analytics.routes.js'

export { analyticsRepository } from './analytics.repository.js'
export { analyticsService, type AnalyticsService } from './analytics.service.js'
export { moveReviews, rebuildStore, recordEngagement, type ReviewFact, trackOrders } from './rollups.js'

/** Review, review request and storefront analytics, read from aggregates kept as data arrives (rollups.ts). */
export default async function analytics (app: FastifyInstance) {
  await app.register(analyticsRoutes, { service: app.services.analytics })
}
