import type { FastifyInstance } from 'fastify'
import { loyaltyRoutes } from './loyalty.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { LoyaltyService } from './loyalty.service.js'
import type { CustomersRepository } from '../customers/index.js'
import type { StoreEnv } from '../../types.js'
import type { Knex } from 'knex'
import { loyaltyPages } from './admin/loyalty.routes.js'
import { defineModule } from '../../lib/module.js'
import { birthdayJob } from './birthdays.js'
import { loyaltyRepository } from './loyalty.repository.js'
import { loyaltyService } from './loyalty.service.js'

export { birthdayJob } from './birthdays.js'
export { loyaltyRepository } from './loyalty.repository.js'
export { loyaltyService, type LoyaltyService } from './loyalty.service.js'

/** Loyalty: settings, accounts with their ledger, transactions and referrals (the birthday job runs in src/jobs.ts). */
export default async function loyalty (app: FastifyInstance) {
  await app.register(loyaltyRoutes, { service: app.services.loyalty })
}

/** Orders earn points and complete referrals; an erasure withdraws the customer's referrals and ledger details. */
export function loyaltyReactions (bus: DomainBus, { loyalty }: { loyalty: LoyaltyService }) {
  bus.on('orders.written', (trx, { store, rows }) => loyalty.onOrdersWritten(trx, store, rows))
  bus.on('customer.erased', async (trx, { subject }) => { await loyalty.erase(trx, subject) })
}

/**
 * The customer each order names, for the orders module: by platform id, else by address; a referred address's
 * first order makes its customer, so the referral it completes has someone to reward.
 */
export function orderCustomers ({ loyalty, customers }: { loyalty: LoyaltyService, customers: CustomersRepository }) {
  return async (
    store: StoreEnv,
    refs: Array<{ platformCustomerId?: string | null, email?: string | null, name?: string | null }>,
    trx: Knex.Transaction
  ) => loyalty.linkReferees(trx, store, refs, await customers.resolve(store.id, refs, trx))
}

declare module '../../lib/module.js' {
  interface Services {
    loyaltyRepo: ReturnType<typeof loyaltyRepository>
    loyalty: LoyaltyService
    orderCustomers: ReturnType<typeof orderCustomers>
    birthdays: ReturnType<typeof birthdayJob>
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { loyalty: true }
}

export const manifest = defineModule({
  name: 'loyalty',
  resources: {
    loyalty: { read: 'viewer', write: 'editor', area: 'Customers & loyalty', description: 'Loyalty points, tiers and rewards.' }
  },
  services: {
    loyaltyRepo: ({ db }) => loyaltyRepository(db),
    loyalty: ({ db, loyaltyRepo, customersRepo, events, clock, bus, customers }) => loyaltyService({
      db, repo: loyaltyRepo, customers: customersRepo, events, clock, bus, makeCustomer: (trx, lead) => customers.fromLead(trx, lead)
    }),
    orderCustomers: ({ loyalty, customersRepo }) => orderCustomers({ loyalty, customers: customersRepo }),
    birthdays: ({ db, loyalty, clock }) => birthdayJob({ db, loyalty, clock })
  },
  emits: ['loyalty.rewarded'],
  reactions: loyaltyReactions,
  admin: {
    pages: [loyaltyPages],
    nav: [
      { label: 'Loyalty', path: '/admin/loyalty', resource: 'loyalty' }
    ]
  },
  routes: [{ plugin: loyalty, prefix: '/v1' }]
})
