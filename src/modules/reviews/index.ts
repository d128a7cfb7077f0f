import type { FastifyInstance } from 'fastify'
import { reviewsRoutes } from './reviews.routes.js'

export { type ReviewRow, reviewsRepository, type ReviewsRepository } from './reviews.repository.js'
export { ReviewInput, Status } from './reviews.schemas.js'
export { isVerified, presentReview, reviewsService, type ReviewsService } from './reviews.service.js'

/** Reviews: the merchant's list and moderation (credential) and the storefront form and helpful votes. */
export default async function reviews (app: FastifyInstance) {
  await app.register(reviewsRoutes, { service: app.services.reviews })
}
