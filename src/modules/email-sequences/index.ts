import type { FastifyInstance } from 'fastify'
import { emailSequencesRoutes } from './email-sequences.routes.js'
import { defineModule } from '../../lib/module.js'
import { emailSequencesRepository, type EmailSequencesRepository } from './email-sequences.repository.js'
import { emailSequencesService, type EmailSequencesService } from './email-sequences.service.js'

export { emailSequencesRepository, type EmailSequencesRepository, type Step } from './email-sequences.repository.js'
export { createSequence, MAX_DELAY_HOURS } from './email-sequences.schemas.js'
export { emailSequencesService, type EmailSequencesService } from './email-sequences.service.js'

/** The steps a store's review requests follow (docs/contract/resources.md#email-sequences). */
export default async function emailSequences (app: FastifyInstance) {
  await app.register(emailSequencesRoutes, { service: app.services.emailSequences })
}

declare module '../../lib/module.js' {
  interface Services {
    emailSequencesRepo: EmailSequencesRepository
    emailSequences: EmailSequencesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'email-sequences': true }
}

export const manifest = defineModule({
  name: 'email-sequences',
  resources: {
    'email-sequences': { read: 'viewer', write: 'editor', area: 'Email', description: 'Timed sequences of review request emails.' }
  },
  services: {
    emailSequencesRepo: ({ db }) => emailSequencesRepository(db),
    emailSequences: ({ db, emailSequencesRepo, events, clock }) => emailSequencesService({ db, repo: emailSequencesRepo, events, clock })
  },
  routes: [{ plugin: emailSequences, prefix: '/v1' }]
})
