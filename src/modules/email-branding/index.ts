import type { FastifyInstance } from 'fastify'
import { emailBrandingRoutes } from './email-branding.routes.js'
import { defineModule } from '../../lib/module.js'
import { emailBrandingRepository } from './email-branding.repository.js'
import { emailBrandingService, type EmailBrandingService } from './email-branding.service.js'

export { emailBrandingRepository } from './email-branding.repository.js'
export { emailBrandingService, type EmailBrandingService } from './email-branding.service.js'

/** The sender name, logo, colour and footer of a store's mails, with a rendered preview. */
export default async function emailBranding (app: FastifyInstance) {
  await app.register(emailBrandingRoutes, { service: app.services.emailBranding, email: app.services.email })
}

declare module '../../lib/module.js' {
  interface Services {
    emailBrandingRepo: ReturnType<typeof emailBrandingRepository>
    emailBranding: EmailBrandingService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'email-branding': true }
}

export const manifest = defineModule({
  name: 'email-branding',
  resources: {
    'email-branding': { read: 'viewer', write: 'editor', area: 'Email', description: 'Logo, colours and footer of outgoing email.' }
  },
  services: {
    emailBrandingRepo: ({ db }) => emailBrandingRepository(db),
    emailBranding: ({ db, emailBrandingRepo, uploads, events, clock }) =>
      emailBrandingService({ db, repo: emailBrandingRepo, uploads, events, clock })
  },
  routes: [{ plugin: emailBranding, prefix: '/v1' }]
})
