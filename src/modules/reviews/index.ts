import type { FastifyInstance } from 'fastify'
import { reviewsRoutes } from './reviews.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { Knex } from 'knex'
import type { ReviewsService } from './reviews.service.js'
import { defineModule } from '../../lib/module.js'

export { type ReviewRow, reviewsRepository, type ReviewsRepository } from './reviews.repository.js'
export { ReviewInput, Status } from './reviews.schemas.js'
export { isVerified, presentReview, reviewsService, type ReviewsService } from './reviews.service.js'

/** Reviews: the merchant's list and moderation (credential) and the storefront form and helpful votes. */
export default async function reviews (app: FastifyInstance) {
  await app.register(reviewsRoutes, { service: app.services.reviews })
}

/** Orders re-check `verified` on the reviews they name; an erased author's name leaves the storefront's kept pages. */
export function reviewsReactions (bus: DomainBus, { reviews, reviewsChanged }: { reviews: ReviewsService, reviewsChanged: (storeId: string, trx: Knex) => void }) {
  bus.on('orders.written', (trx, { store, rows }) => reviews.reverify(trx, store, rows))
  bus.on('customer.erased', async (trx, { subject }) => { reviewsChanged(subject.storeEnvId, trx) })
}

export const manifest = defineModule({ name: 'reviews', routes: [{ plugin: reviews, prefix: '/v1' }] })
