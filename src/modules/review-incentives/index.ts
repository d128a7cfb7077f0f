import type { FastifyInstance } from 'fastify'
import { reviewIncentivesRoutes } from './review-incentives.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { ReviewIncentivesService } from './review-incentives.service.js'
import { incentivesPages } from './admin/incentives.routes.js'
import { defineModule } from '../../lib/module.js'
import { reviewIncentivesRepository } from './review-incentives.repository.js'
import { reviewIncentivesService } from './review-incentives.service.js'

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

declare module '../../lib/module.js' {
  interface Services {
    reviewIncentivesRepo: ReturnType<typeof reviewIncentivesRepository>
    reviewIncentives: ReviewIncentivesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'review-incentives': true }
}

export const manifest = defineModule({
  name: 'review-incentives',
  resources: {
    'review-incentives': {
      read: 'viewer',
      write: 'editor',
      area: 'Customers & loyalty',
      description: 'Rewards offered for writing a review.'
    }
  },
  services: {
    reviewIncentivesRepo: ({ db }) => reviewIncentivesRepository(db),
    reviewIncentives: ({ db, reviewIncentivesRepo, customersRepo, loyalty, events, clock, bus }) =>
      reviewIncentivesService({ db, repo: reviewIncentivesRepo, customers: customersRepo, loyalty, events, clock, bus })
  },
  emits: ['incentive.issued'],
  reactions: reviewIncentivesReactions,
  admin: {
    pages: [incentivesPages],
    nav: [
      { label: 'Incentives', path: '/admin/review-incentives', resource: 'review-incentives' }
    ]
  },
  routes: [{ plugin: reviewIncentives, prefix: '/v1' }]
})
