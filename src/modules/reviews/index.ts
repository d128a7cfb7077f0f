import type { FastifyInstance } from 'fastify'
import { productsRepository } from '../products/products.repository.js'
import { uploadsServiceFor } from '../uploads/index.js'
import { reviewsRepository } from './reviews.repository.js'
import { reviewsService } from './reviews.service.js'
import { reviewsRoutes } from './reviews.routes.js'

export function reviewsServiceFor (app: FastifyInstance) {
  return reviewsService({
    db: app.db,
    repo: reviewsRepository(app.db),
    products: productsRepository(app.db),
    uploads: uploadsServiceFor(app),
    events: app.events,
    clock: app.clock,
    secretKey: app.config.secretKey
  })
}

/** Reviews: the merchant's list and moderation (credential) and the storefront form and helpful votes. */
export default async function reviews (app: FastifyInstance) {
  await app.register(reviewsRoutes, { service: reviewsServiceFor(app) })
}
