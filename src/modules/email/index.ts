import type { FastifyInstance } from 'fastify'
import { emailRoutes } from './email.routes.js'
import { emailProvidersRoutes } from '../delivery/index.js'
import { emailSettingsRoutes } from './settings.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { EmailRepository } from './email.repository.js'
import type { RewardMails } from './reward-mails.js'
import { defineModule } from '../../lib/module.js'

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

/**
 * A reward (loyalty's birthday and referral rewards, a review incentive) queues its mail in the granting
 * transaction; an erasure clears the customer's address from the mail log and the queued reward mails.
 */
export function emailReactions (bus: DomainBus, { emailRepo, rewardMails }: { emailRepo: EmailRepository, rewardMails: RewardMails }) {
  bus.on('loyalty.rewarded', (trx, { store, reward }) => rewardMails.onLoyaltyReward(trx, store, reward))
  bus.on('incentive.issued', (trx, { store, issued }) => rewardMails.onIncentiveIssued(trx, store, issued))
  bus.on('customer.erased', async (trx, { subject }) => {
    if (!subject.email) return
    await emailRepo.eraseRecipient(trx, subject.storeEnvId, subject.email)
    await rewardMails.eraseRecipient(trx, subject.storeEnvId, subject.email)
  })
}

export const manifest = defineModule({ name: 'email', routes: [{ plugin: email, prefix: '/v1' }] })
