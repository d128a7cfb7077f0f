import type { FastifyInstance } from 'fastify'
import { customersRoutes } from './customers.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import { customersPages } from './admin/customers.routes.js'
import { defineModule } from '../../lib/module.js'
import { customersRepository, type CustomersRepository } from './customers.repository.js'
import { customersService, type CustomersService } from './customers.service.js'

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

declare module '../../lib/module.js' {
  interface Services {
    customersRepo: CustomersRepository
    customers: CustomersService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { customers: true }
}

export const manifest = defineModule({
  name: 'customers',
  resources: {
    customers: { read: 'viewer', write: 'editor', area: 'Customers & loyalty', description: 'Customer records and their review history.' }
  },
  services: {
    customersRepo: ({ db }) => customersRepository(db),
    customers: ({ db, customersRepo, events, audit, clock, bus }) =>
      customersService({ db, repo: customersRepo, events, audit, clock, bus })
  },
  emits: ['customer.erased'],
  reactions: customersReactions,
  admin: {
    pages: [customersPages],
    nav: [
      { label: 'Customers', path: '/admin/customers', resource: 'customers' }
    ]
  },
  routes: [{ plugin: customers, prefix: '/v1' }]
})
