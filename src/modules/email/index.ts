import type { FastifyInstance } from 'fastify'
import { emailRoutes } from './email.routes.js'
import { emailProvidersRoutes } from '../delivery/index.js'
import { emailSettingsRoutes } from './settings.routes.js'

export { emailRepository } from './email.repository.js'
export { putTemplate, TemplateKeyField } from './email.schemas.js'
export { emailSender, type EmailSender } from './email.sender.js'
export { emailService, type EmailService } from './email.service.js'
export type { Branding } from './layout.js'
export { rewardMailsRepository } from './reward-mails.repository.js'
export { rewardMails } from './reward-mails.js'
export { emailSettingsService, type EmailSettingsService } from './settings.service.js'
export { isTemplateKey, productListValue, TEMPLATE_KEYS, type TemplateKey } from './templates.js'

/**
 * The message log, templates, settings, test sends and the public one-click unsubscribe
 * (docs/contract/resources.md#email).
 */
export default async function email (app: FastifyInstance) {
  await app.register(emailRoutes, { service: app.services.email })
  await app.register(emailProvidersRoutes, { service: app.services.emailProviders })
  await app.register(emailSettingsRoutes, { service: app.services.emailSettings })
}
