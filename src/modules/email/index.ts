import type { FastifyInstance } from 'fastify'
import { emailRoutes } from './email.routes.js'
import { emailProvidersRoutes } from '../delivery/index.js'
import { emailSettingsRoutes } from './settings.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { EmailRepository } from './email.repository.js'
import type { RewardMails } from './reward-mails.js'
import { emailPages } from './admin/email.routes.js'
import { emailSettingsPages } from './admin/email-settings.routes.js'
import { defineModule } from '../../lib/module.js'
import { emailRepository } from './email.repository.js'
import { emailSender, type EmailSender } from './email.sender.js'
import { emailService, type EmailService } from './email.service.js'
import { rewardMailsRepository } from './reward-mails.repository.js'
import { rewardMails } from './reward-mails.js'
import { emailSettingsService, type EmailSettingsService } from './settings.service.js'

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

declare module '../../lib/module.js' {
  interface Services {
    emailRepo: EmailRepository
    rewardMailsRepo: ReturnType<typeof rewardMailsRepository>
    /** Every mail goes through the one sender: suppressions first, then the log, then the transport. */
    mailSender: EmailSender
    email: EmailService
    emailSettings: EmailSettingsService
    /** Loyalty and incentives only tell of a reward (in its transaction); what mail that makes is this module's. */
    rewardMails: RewardMails
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { email: true }
}

export const manifest = defineModule({
  name: 'email',
  resources: {
    email: { read: 'viewer', write: 'editor', area: 'Email', description: 'Review request emails and the mail log.' }
  },
  services: {
    emailRepo: ({ db }) => emailRepository(db),
    rewardMailsRepo: ({ db }) => rewardMailsRepository(db),
    mailSender: ({ db, emailRepo, emailSuppressionsRepo, emailBranding, mailer, sendingDomain, clock, config }) => emailSender({
      db,
      repo: emailRepo,
      suppressions: emailSuppressionsRepo,
      branding: emailBranding.brandingOf,
      transport: mailer,
      signer: sendingDomain.signerFor,
      clock,
      publicUrl: config.publicUrl
    }),
    email: ({ db, emailRepo, mailSender, emailSuppressions, events, clock }) =>
      emailService({ db, repo: emailRepo, sender: mailSender, suppressions: emailSuppressions, events, clock }),
    emailSettings: ({ db, rewardMailsRepo, events, clock }) => emailSettingsService({ db, repo: rewardMailsRepo, events, clock }),
    rewardMails: ({ db, rewardMailsRepo, emailSettings, mailSender, productsRepo, clock }) =>
      rewardMails({ db, repo: rewardMailsRepo, settings: emailSettings, sender: mailSender, products: productsRepo, clock })
  },
  reactions: emailReactions,
  admin: {
    pages: [emailPages, emailSettingsPages],
    nav: [
      { label: 'Email', path: '/admin/email', resource: 'email' }
    ]
  },
  routes: [{ plugin: email, prefix: '/v1' }]
})
