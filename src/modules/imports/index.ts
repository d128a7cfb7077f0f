import type { FastifyInstance } from 'fastify'
import { reviewsRepository } from '../reviews/reviews.repository.js'
import { importsRepository } from './imports.repository.js'
import { importsService } from './imports.service.js'
import { importsRoutes } from './imports.routes.js'

/** Review imports from other platforms, keeping each review's original date. */
export default async function imports (app: FastifyInstance) {
  const service = importsService({ db: app.db, repo: importsRepository(app.db), reviews: reviewsRepository(app.db), events: app.events, clock: app.clock })
  await app.register(importsRoutes, { service })
}
