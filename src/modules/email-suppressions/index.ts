import type { FastifyInstance } from 'fastify'
import { emailSuppressionsRoutes } from './email-suppressions.routes.js'

export { emailSuppressionsRepository, type EmailSuppressionsRepository, normalEmail } from './email-suppressions.repository.js'
export { Email } from './email-suppressions.schemas.js'
export { emailSuppressionsService, type EmailSuppressionsService } from './email-suppressions.service.js'

/** The addresses a store's mail never goes to (docs/contract/resources.md#email-suppressions). */
export default async function emailSuppressions (app: FastifyInstance) {
  await app.register(emailSuppressionsRoutes, { service: app.services.emailSuppressions })
}
