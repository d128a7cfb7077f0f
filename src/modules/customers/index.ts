import type { FastifyInstance } from 'fastify'
import { customersRoutes } from './customers.routes.js'

/** Customers synced from the store platform (bulk upsert keyed on platformCustomerId), and their erasure. */
export default async function customers (app: FastifyInstance) {
  await app.register(customersRoutes, { service: app.services.customers })
}
