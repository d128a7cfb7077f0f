import type { FastifyInstance } from 'fastify'
import { supportRoutes } from './support.routes.js'
import { defineModule } from '../../lib/module.js'
import { supportRepository } from './support.repository.js'
import { supportService, type SupportService } from './support.service.js'

export { supportRepository } from './support.repository.js'
export { supportService, type SupportService } from './support.service.js'

/** Support requests with their context, mailed to SUPPORT_EMAIL (docs/contract/resources.md#support). */
export default async function support (app: FastifyInstance) {
  await app.register(supportRoutes, { service: app.services.support })
}

declare module '../../lib/module.js' {
  interface Services {
    support: SupportService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { support: true }
}

export const manifest = defineModule({
  name: 'support',
  resources: {
    support: { read: 'viewer', write: 'admin', area: 'Account', description: 'Support tickets with the service.' }
  },
  services: {
    support: ({ db, events, recentFailures, mailer, config, clock, log }) =>
      supportService({
        db,
        repo: supportRepository(db),
        events,
        failures: recentFailures,
        mailer,
        supportEmail: config.supportEmail,
        clock,
        log
      })
  },
  routes: [{ plugin: support, prefix: '/v1' }]
})
