import type { FastifyInstance } from 'fastify'
import { productsRepository } from './products.repository.js'
import { productsService } from './products.service.js'
import { productsRoutes } from './products.routes.js'

/** Products synced from the store platform (bulk upsert keyed on platformProductId). */
export default async function products (app: FastifyInstance) {
  const service = productsService({ db: app.db, repo: productsRepository(app.db), events: app.events, clock: app.clock })
  await app.register(productsRoutes, { service })
}
