import type { FastifyInstance } from 'fastify'
import { reviewsRoutes } from './reviews.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { Knex } from 'knex'
import type { ReviewsService } from './reviews.service.js'
import { moderationPages } from './admin/moderation.routes.js'
import { defineModule } from '../../lib/module.js'
import { reviewsRepository, type ReviewsRepository } from './reviews.repository.js'
import { reviewsService } from './reviews.service.js'
import { afterCommit, marker } from '../../lib/freshness.js'

export { type ReviewRow, reviewsRepository, type ReviewsRepository } from './reviews.repository.js'
export { ReviewInput, Status } from './reviews.schemas.js'
export { isVerified, presentReview, reviewsService, type ReviewsService } from './reviews.service.js'

/** Reviews: the merchant's list and moderation (credential) and the storefront form and helpful votes. */
export default async function reviews (app: FastifyInstance) {
  await app.register(reviewsRoutes, { service: app.services.reviews })
}

/** Orders re-check `verified` on the reviews they name; an erased author's name leaves the storefront's kept pages. */
export function reviewsReactions (
  bus: DomainBus,
  { reviews, reviewsChanged }: { reviews: ReviewsService, reviewsChanged: (storeId: string, trx: Knex) => void }
) {
  bus.on('orders.written', (trx, { store, rows }) => reviews.reverify(trx, store, rows))
  bus.on('customer.erased', async (trx, { subject }) => {
    reviewsChanged(subject.storeEnvId, trx)
  })
}

declare module '../../lib/module.js' {
  interface Services {
    reviewsRepo: ReviewsRepository
    /** What is kept derived from a store's reviews (storefront answers, review analytics) is read again on every instance. */
    reviewsChanged: (storeId: string, trx: Knex) => void
    reviews: ReviewsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { reviews: true }
}

export const manifest = defineModule({
  name: 'reviews',
  resources: {
    reviews: {
      read: 'viewer',
      write: 'editor',
      area: 'Catalog & reviews',
      description: 'Reviews: list and read them; write moderates and deletes.'
    }
  },
  services: {
    reviewsChanged: ({ freshness }) => (storeId, trx) => afterCommit(trx, () => freshness.bump([marker.reviews(storeId)])),
    reviewsRepo: ({ db, reviewsChanged }) => reviewsRepository(db, { changed: reviewsChanged }),
    reviews: ({ db, reviewsRepo, productsRepo, uploads, events, clock, config, bus }) =>
      reviewsService({ db, repo: reviewsRepo, products: productsRepo, uploads, events, clock, secretKey: config.secretKey, bus })
  },
  emits: ['review.published'],
  reactions: reviewsReactions,
  admin: {
    pages: [moderationPages],
    nav: [
      { label: 'Reviews', path: '/admin/reviews', resource: 'reviews' },
      { label: 'Galleries', path: '/admin/galleries', resource: 'galleries' }
    ]
  },
  routes: [{ plugin: reviews, prefix: '/v1' }]
})
