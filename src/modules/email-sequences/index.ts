import type { FastifyInstance } from 'fastify'
import { emailSequencesRoutes } from './email-sequences.routes.js'
import { defineModule } from '../../lib/module.js'

export { emailSequencesRepository, type EmailSequencesRepository, type Step } from './email-sequences.repository.js'
export { createSequence, MAX_DELAY_HOURS } from './email-sequences.schemas.js'
export { emailSequencesService, type EmailSequencesService } from './email-sequences.service.js'

/** The steps a store's review requests follow (docs/contract/resources.md#email-sequences). */
export default async function emailSequences (app: FastifyInstance) {
  await app.register(emailSequencesRoutes, { service: app.services.emailSequences })
}

export const manifest = defineModule({ name: 'email-sequences', routes: [{ plugin: emailSequences, prefix: '/v1' }] })
