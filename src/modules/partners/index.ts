import type { FastifyInstance } from 'fastify'
import { partnersRoutes } from './partners.routes.js'
import { defineModule } from '../../lib/module.js'
import { partnerGrantsRepository } from './partners.repository.js'
import { partnersService, type PartnersService } from './partners.service.js'

export { type GrantableRole, partnerGrantsRepository } from './partners.repository.js'
export { lesserRole, partnersService, type PartnersService } from './partners.service.js'

/**
 * Partner (agency) grants of the organization, and the clients a partner works for
 * (docs/contract/tenancy-and-roles.md#partner-access).
 */
export default async function partners (app: FastifyInstance) {
  await app.register(partnersRoutes, { service: app.services.partners })
}

declare module '../../lib/module.js' {
  interface Services {
    partnerGrantsRepo: ReturnType<typeof partnerGrantsRepository>
    partners: PartnersService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { partner: true }
}

export const manifest = defineModule({
  name: 'partners',
  resources: {
    partner: { read: 'viewer', write: 'admin', area: 'Customers & loyalty', description: 'Partner (agency) access to the organization.' }
  },
  services: {
    partnerGrantsRepo: ({ db }) => partnerGrantsRepository(db),
    partners: ({ db, partnerGrantsRepo, people, stores, audit, clock }) =>
      partnersService({ db, repo: partnerGrantsRepo, people, stores, audit, clock })
  },
  routes: [{ plugin: partners, prefix: '/v1' }]
})
