import type { FastifyInstance } from 'fastify'
import { emailRoutes } from './email.routes.js'
import { emailProvidersRoutes } from './providers.routes.js'
import { emailSettingsRoutes } from './settings.routes.js'

/** The message log, templates, settings, test sends and the public one-click unsubscribe (decisions.md section 15 "Email"). */
export default async function email (app: FastifyInstance) {
  await app.register(emailRoutes, { service: app.services.email })
  await app.register(emailProvidersRoutes, { service: app.services.emailProviders })
  await app.register(emailSettingsRoutes, { service: app.services.emailSettings })
}
