import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../schemas.js'

const Flags = {
  loyaltyRewardMails: Type.Boolean({
    description:
      'Mail the customer when a loyalty birthday or referral reward is granted (templates `loyalty_birthday`, `loyalty_referral`)'
  }),
  reviewIncentiveMails: Type.Boolean({
    description: 'Mail the reviewer the coupon code or points a review incentive gave them (template `review_incentive`)'
  })
}

const Settings = Type.Object({
  ...Flags,
  updatedAt: Type.Union([DateTime, Type.Null()], { description: 'Null while the store keeps the defaults (both on)' })
})

export const getSettings = {
  tags: ['email'],
  summary: 'Which of the service\'s own mails this store sends',
  description: 'A reward mail is queued in the transaction that grants the reward, once per reward (its loyalty ledger entry or ' +
    'review incentive issue), and sent within a minute by the worker through the path review requests take: the suppression list ' +
    'first (a suppressed address gets a `suppressed` row in the message log and no mail), the store\'s template and branding, ' +
    '`List-Unsubscribe` with one-click, DKIM from a verified sending domain, and a row in `GET /v1/email/messages` with the ' +
    'template key as its `kind`. A customer or reviewer without an address gets none.',
  response: { 200: Settings, ...authErrors }
}

export const putSettings = {
  tags: ['email'],
  summary: 'Turn the reward mails on or off',
  description: 'A mail already queued when its kind is turned off is not sent (the queue notes why). Appends `email_settings.updated`.',
  body: Type.Object(Flags, { additionalProperties: false, examples: [{ loyaltyRewardMails: true, reviewIncentiveMails: false }] }),
  response: { 200: Settings, ...authErrors }
}
