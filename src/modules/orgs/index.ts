import type { FastifyInstance } from 'fastify'
import { orgsRoutes } from './orgs.routes.js'
import { defineModule } from '../../lib/module.js'

export { orgsRepository } from './orgs.repository.js'
export { orgsService, type OrgsService } from './orgs.service.js'

/** The caller's organization: view, rename, ownership transfer (docs/contract/resources.md#organization). */
export default async function orgs (app: FastifyInstance) {
  await app.register(orgsRoutes, { service: app.services.orgs })
}

export const manifest = defineModule({ name: 'orgs', routes: [{ plugin: orgs, prefix: '/v1' }] })
