import type { FastifyInstance } from 'fastify'
import { productsRoutes } from './products.routes.js'

/** Products synced from the store platform (bulk upsert keyed on platformProductId). */
export default async function products (app: FastifyInstance) {
  await app.register(productsRoutes, { service: app.services.products })
}
