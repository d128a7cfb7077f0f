import type { FastifyInstance } from 'fastify'
import { customersRoutes } from './customers.routes.js'

export { customersRepository, type CustomersRepository, emailKey } from './customers.repository.js'
export { customersService, type CustomersService, type LeadInput } from './customers.service.js'
export { type ErasureStep, type ErasureSubject, scrub } from './erasure.js'

/** Customers synced from the store platform (bulk upsert keyed on platformCustomerId), and their erasure. */
export default async function customers (app: FastifyInstance) {
  await app.register(customersRoutes, { service: app.services.customers })
}
