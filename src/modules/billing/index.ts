import type { FastifyInstance } from 'fastify'
import { billingRoutes } from './billing.routes.js'
import { defineModule } from '../../lib/module.js'

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

export const manifest = defineModule({ name: 'billing', routes: [{ plugin: billing, prefix: '/v1' }] })
