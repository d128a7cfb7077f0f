import type { FastifyInstance } from 'fastify'
import { emailSequencesRoutes } from './email-sequences.routes.js'

/** The steps a store's review requests follow (decisions.md section 15 "Email"). */
export default async function emailSequences (app: FastifyInstance) {
  await app.register(emailSequencesRoutes, { service: app.services.emailSequences })
}
