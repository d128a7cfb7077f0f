import type { FastifyInstance } from 'fastify'
import { billingRoutes } from './billing.routes.js'
import { defineModule } from '../../lib/module.js'
import { type BillingProvider, embeddedProvider } from './billing.provider.js'
import { billingRepository } from './billing.repository.js'
import { billingService, type BillingService } from './billing.service.js'

export { type BillingProvider, CURRENCY, embeddedProvider, PLAN_PRICES } from './billing.provider.js'
export { billingRepository } from './billing.repository.js'
export { billingService, type BillingService } from './billing.service.js'

/**
 * The store's subscription, plan changes through the billing provider, and invoices
 * (docs/contract/plans-and-limits.md#billing).
 */
export default async function billing (app: FastifyInstance) {
  await app.register(billingRoutes, { service: app.services.billing })
}

declare module '../../lib/module.js' {
  interface Services {
    billing: BillingService
  }
  interface Overrides {
    /** The billing provider adapter (billing.provider.ts); the embedded one unless given. */
    billingProvider?: BillingProvider
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { billing: true }
}

export const manifest = defineModule({
  name: 'billing',
  resources: {
    billing: { read: 'admin', write: 'owner', area: 'Account', description: 'Plans, invoices and payment details.' }
  },
  services: {
    billing: ({ db, stores, overrides, events, audit, clock, freshness }) =>
      billingService({
        db,
        repo: billingRepository(db),
        stores,
        provider: overrides.billingProvider ?? embeddedProvider(),
        events,
        audit,
        clock,
        fresh: freshness
      })
  },
  routes: [{ plugin: billing, prefix: '/v1' }]
})
