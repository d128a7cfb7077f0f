import type { FastifyInstance } from 'fastify'
import { partnersRoutes } from './partners.routes.js'
import { defineModule } from '../../lib/module.js'

export { type GrantableRole, partnerGrantsRepository } from './partners.repository.js'
export { lesserRole, partnersService, type PartnersService } from './partners.service.js'

/**
 * Partner (agency) grants of the organization, and the clients a partner works for
 * (docs/contract/tenancy-and-roles.md#partner-access).
 */
export default async function partners (app: FastifyInstance) {
  await app.register(partnersRoutes, { service: app.services.partners })
}

export const manifest = defineModule({ name: 'partners', routes: [{ plugin: partners, prefix: '/v1' }] })
