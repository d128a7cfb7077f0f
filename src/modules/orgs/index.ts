import type { FastifyInstance } from 'fastify'
import { orgsRoutes } from './orgs.routes.js'
import { defineModule } from '../../lib/module.js'
import { orgsRepository } from './orgs.repository.js'
import { orgsService, type OrgsService } from './orgs.service.js'

export { orgsRepository } from './orgs.repository.js'
export { orgsService, type OrgsService } from './orgs.service.js'

/** The caller's organization: view, rename, ownership transfer (docs/contract/resources.md#organization). */
export default async function orgs (app: FastifyInstance) {
  await app.register(orgsRoutes, { service: app.services.orgs })
}

declare module '../../lib/module.js' {
  interface Services {
    orgs: OrgsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { orgs: true }
}

export const manifest = defineModule({
  name: 'orgs',
  resources: {
    orgs: { read: 'admin', write: 'owner', area: 'Account', description: 'Organization settings and ownership.' }
  },
  services: {
    orgs: ({ db, people, audit, freshness }) => orgsService({ db, repo: orgsRepository(db), people, audit, fresh: freshness })
  },
  routes: [{ plugin: orgs, prefix: '/v1' }]
})
