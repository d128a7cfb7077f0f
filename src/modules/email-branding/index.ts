import type { FastifyInstance } from 'fastify'
import { emailBrandingRoutes } from './email-branding.routes.js'
import { defineModule } from '../../lib/module.js'

export { emailBrandingRepository } from './email-branding.repository.js'
export { emailBrandingService, type EmailBrandingService } from './email-branding.service.js'

/** The sender name, logo, colour and footer of a store's mails, with a rendered preview. */
export default async function emailBranding (app: FastifyInstance) {
  await app.register(emailBrandingRoutes, { service: app.services.emailBranding, email: app.services.email })
}

export const manifest = defineModule({ name: 'email-branding', routes: [{ plugin: emailBranding, prefix: '/v1' }] })
