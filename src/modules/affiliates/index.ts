import type { FastifyInstance } from 'fastify'
import { affiliatesRoutes } from './affiliates.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { AffiliatesService } from './affiliates.service.js'
import { defineModule } from '../../lib/module.js'

export { affiliatesRepository } from './affiliates.repository.js'
export { affiliatesService, type AffiliatesService } from './affiliates.service.js'

/** Affiliates, their referrals from orders carrying their code, and the USD rates of the 500 USD cap. */
export default async function affiliates (app: FastifyInstance) {
  await app.register(affiliatesRoutes, { service: app.services.affiliates })
}

/** An order carrying an affiliate's referral code earns its commission. */
export function affiliatesReactions (bus: DomainBus, { affiliates }: { affiliates: AffiliatesService }) {
  bus.on('orders.written', (trx, { store, rows }) => affiliates.recordReferrals(trx, store, rows))
}

export const manifest = defineModule({ name: 'affiliates', routes: [{ plugin: affiliates, prefix: '/v1' }] })
