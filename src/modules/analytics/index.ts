import type { FastifyInstance } from 'fastify'
import { analyticsRoutes } from './analytics.routes.js'

/** Review, review request and storefront analytics, read from aggregates kept as data arrives (rollups.ts). */
export default async function analytics (app: FastifyInstance) {
  await app.register(analyticsRoutes, { service: app.services.analytics })
}
