import type { FastifyInstance } from 'fastify'
import { reviewIncentivesRoutes } from './review-incentives.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { ReviewIncentivesService } from './review-incentives.service.js'
import { defineModule } from '../../lib/module.js'

export { reviewIncentivesRepository } from './review-incentives.repository.js'
export { createIncentive, updateIncentive } from './review-incentives.schemas.js'
export { reviewIncentivesService, type ReviewIncentivesService } from './review-incentives.service.js'

/** Review incentives: rules, coupon code pools, and the one reward a qualifying published review gets. */
export default async function reviewIncentives (app: FastifyInstance) {
  await app.register(reviewIncentivesRoutes, { service: app.services.reviewIncentives })
}

/** A published review earns its incentive (a code or points), in the moderation transaction. */
export function reviewIncentivesReactions (bus: DomainBus, { reviewIncentives }: { reviewIncentives: ReviewIncentivesService }) {
  bus.on('review.published', (trx, { store, review }) => reviewIncentives.onPublished(trx, store, review))
}

export const manifest = defineModule({ name: 'review-incentives', routes: [{ plugin: reviewIncentives, prefix: '/v1' }] })
