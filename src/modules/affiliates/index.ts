import type { FastifyInstance } from 'fastify'
import { affiliatesRoutes } from './affiliates.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { AffiliatesService } from './affiliates.service.js'
import { affiliatesPages } from './admin/affiliates.routes.js'
import { defineModule } from '../../lib/module.js'
import { affiliatesRepository } from './affiliates.repository.js'
import { affiliatesService } from './affiliates.service.js'

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

declare module '../../lib/module.js' {
  interface Services {
    affiliatesRepo: ReturnType<typeof affiliatesRepository>
    affiliates: AffiliatesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { affiliates: true }
}

export const manifest = defineModule({
  name: 'affiliates',
  resources: {
    affiliates: { read: 'viewer', write: 'admin', area: 'Customers & loyalty', description: 'Affiliate programmes and their referrals.' }
  },
  services: {
    affiliatesRepo: ({ db }) => affiliatesRepository(db),
    affiliates: ({ db, affiliatesRepo, events, clock }) => affiliatesService({ db, repo: affiliatesRepo, events, clock })
  },
  reactions: affiliatesReactions,
  admin: {
    pages: [affiliatesPages],
    nav: [
      { label: 'Affiliates', path: '/admin/affiliates', resource: 'affiliates', needsStore: true }
    ]
  },
  routes: [{ plugin: affiliates, prefix: '/v1' }]
})
