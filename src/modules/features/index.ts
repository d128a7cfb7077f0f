import type { FastifyInstance } from 'fastify'
import { featuresRoutes } from './features.routes.js'

/** The store's entitlements by plan, with operator overrides (decisions.md section 15). */
export default async function features (app: FastifyInstance) {
  await app.register(featuresRoutes, { service: app.services.features })
}
