import type { FastifyInstance } from 'fastify'
import { productsRoutes } from './products.routes.js'

export { type ProductRow, productsRepository, type ProductsRepository } from './products.repository.js'
export { BulkResult } from './products.schemas.js'
export { isOlder, MAX_BATCH, productsService, type ProductsService } from './products.service.js'

/** Products synced from the store platform (bulk upsert keyed on platformProductId). */
export default async function products (app: FastifyInstance) {
  await app.register(productsRoutes, { service: app.services.products })
}
