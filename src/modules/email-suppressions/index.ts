import type { FastifyInstance } from 'fastify'
import { emailSuppressionsRoutes } from './email-suppressions.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { EmailSuppressionsService } from './email-suppressions.service.js'
import { defineModule } from '../../lib/module.js'
import { emailSuppressionsRepository, type EmailSuppressionsRepository } from './email-suppressions.repository.js'
import { emailSuppressionsService } from './email-suppressions.service.js'

export { emailSuppressionsRepository, type EmailSuppressionsRepository, normalEmail } from './email-suppressions.repository.js'
export { Email } from './email-suppressions.schemas.js'
export { emailSuppressionsService, type EmailSuppressionsService } from './email-suppressions.service.js'

/** The addresses a store's mail never goes to (docs/contract/resources.md#email-suppressions). */
export default async function emailSuppressions (app: FastifyInstance) {
  await app.register(emailSuppressionsRoutes, { service: app.services.emailSuppressions })
}

/** An erased customer's address goes on the suppression list, so nothing is mailed to it again. */
export function emailSuppressionsReactions (bus: DomainBus, { emailSuppressions }: { emailSuppressions: EmailSuppressionsService }) {
  bus.on('customer.erased', async (trx, { subject }) => { await emailSuppressions.suppressErased(trx, subject) })
}

declare module '../../lib/module.js' {
  interface Services {
    emailSuppressionsRepo: EmailSuppressionsRepository
    emailSuppressions: EmailSuppressionsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'email-suppressions': true }
}

export const manifest = defineModule({
  name: 'email-suppressions',
  resources: {
    'email-suppressions': { read: 'viewer', write: 'editor', area: 'Email', description: 'Addresses that must not be emailed.' }
  },
  services: {
    emailSuppressionsRepo: ({ db }) => emailSuppressionsRepository(db),
    emailSuppressions: ({ db, emailSuppressionsRepo, events, clock }) =>
      emailSuppressionsService({ db, repo: emailSuppressionsRepo, events, clock })
  },
  reactions: emailSuppressionsReactions,
  routes: [{ plugin: emailSuppressions, prefix: '/v1' }]
})
