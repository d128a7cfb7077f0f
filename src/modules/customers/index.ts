import type { FastifyInstance } from 'fastify'
import { customersRoutes } from './customers.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { CustomersService } from './customers.service.js'
import { defineModule } from '../../lib/module.js'

export { customersRepository, type CustomersRepository, emailKey } from './customers.repository.js'
export { customersService, type CustomersService, type LeadInput } from './customers.service.js'
export { type ErasureOutcome, type ErasureSubject, scrub } from './erasure.js'

/** Customers synced from the store platform (bulk upsert keyed on platformCustomerId), and their erasure. */
export default async function customers (app: FastifyInstance) {
  await app.register(customersRoutes, { service: app.services.customers })
}

/** A gallery lead becomes or updates a customer (docs/contract/resources.md#customers), in the lead's transaction. */
export function customersReactions (bus: DomainBus, { customers }: { customers: CustomersService }) {
  bus.on('gallery.lead', async (trx, { lead }) => { await customers.fromLead(trx, lead) })
}

export const manifest = defineModule({ name: 'customers', routes: [{ plugin: customers, prefix: '/v1' }] })
