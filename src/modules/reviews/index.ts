import type { FastifyInstance } from 'fastify'
import { reviewsRoutes } from './reviews.routes.js'

/** Reviews: the merchant's list and moderation (credential) and the storefront form and helpful votes. */
export default async function reviews (app: FastifyInstance) {
  await app.register(reviewsRoutes, { service: app.services.reviews })
}
