import type { FastifyInstance } from 'fastify'
import { reviewIncentivesRoutes } from './review-incentives.routes.js'

export { reviewIncentivesRepository } from './review-incentives.repository.js'
export { createIncentive, updateIncentive } from './review-incentives.schemas.js'
export { reviewIncentivesService, type ReviewIncentivesService } from './review-incentives.service.js'

/** Review incentives: rules, coupon code pools, and the one reward a qualifying published review gets. */
export default async function reviewIncentives (app: FastifyInstance) {
  await app.register(reviewIncentivesRoutes, { service: app.services.reviewIncentives })
}
