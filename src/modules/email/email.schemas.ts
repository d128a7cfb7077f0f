import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, ErrorBody, PageQuery, Paged } from '../../schemas.js'
import { Email } from '../email-suppressions/index.js'
import { BODY_MAX, SUBJECT_MAX } from './templates.js'

export const TemplateKeyField = Type.Union([
  Type.Literal('review_request'),
  Type.Literal('review_reminder'),
  Type.Literal('loyalty_birthday'),
  Type.Literal('loyalty_referral'),
  Type.Literal('review_incentive')
], {
  description: 'Which mail the template is for: `review_request` and `review_reminder` (review requests and sequence steps), ' +
    '`loyalty_birthday` and `loyalty_referral` (a loyalty reward granted; the referral one goes to both friends), `review_incentive` ' +
    '(the coupon code or points a review earned). See `GET /v1/email/settings` for when reward mails go out.'
})
const Status = Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('suppressed')])

const Message = Type.Object({
  id: Type.String(),
  storeEnvId: Type.Union([Type.String(), Type.Null()], { description: 'Null for organization mail (invitations)' }),
  to: Type.String({
    description:
      'The recipient; for mail to a reviewer (kind `review_incentive`) only `…` and the address\'s last 4 characters, as reviews show it'
  }),
  subject: Type.String(),
  kind: Type.String({ description: 'The template key, `test`, or `invitation`' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('suppressed')], {
    description:
      '`queued` (kept in the local outbox, or being handed over), `sent` (accepted by the SMTP server), `failed`, `suppressed` (the address is on the suppression list)'
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime
})

export const listMessages = {
  tags: ['email'],
  summary: 'The message log: every mail the service sent or refused to send for this store, newest first',
  description:
    'Review requests and reminders, loyalty and incentive mails, test sends, and (for credentials not limited to some stores) the organization\'s invitations.',
  querystring: Type.Object({
    ...PageQuery,
    status: Type.Optional(Status),
    kind: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'Only messages changed at or after this instant' }))
  }),
  response: { 200: Paged(Message), ...authErrors }
}

const Template = Type.Object({
  key: TemplateKeyField,
  subject: Type.String(),
  body: Type.String({ description: 'Plain text; blank lines make paragraphs in the HTML part' }),
  variables: Type.Array(Type.String(), { description: 'The placeholders this template may use, as `{{name}}`' }),
  custom: Type.Boolean({ description: 'False: the built-in default is in use' }),
  updatedAt: Type.Union([DateTime, Type.Null()])
})

const KeyParams = Type.Object({ key: TemplateKeyField })

export const getTemplate = {
  tags: ['email'],
  summary: 'A mail template of this store (the built-in default until the store replaces it)',
  params: KeyParams,
  response: { 200: Template, ...authErrors }
}

/** No control characters but line breaks and tabs in a body; none at all in a subject (it becomes a header). */
const NO_CONTROLS = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$'

export const putTemplate = {
  tags: ['email'],
  summary: 'Replace a mail template: text with `{{variable}}` placeholders, no code',
  description: 'Only the placeholders listed in `variables` are allowed (anything else is a 400 naming them); values are ' +
    'inserted once, never re-read as template, and escaped in the HTML part. Appends `email_template.updated`.',
  params: KeyParams,
  body: Type.Object({
    subject: Type.String({ minLength: 1, maxLength: SUBJECT_MAX, pattern: '^[^\\u0000-\\u001f\\u007f]*$' }),
    body: Type.String({ minLength: 1, maxLength: BODY_MAX, pattern: NO_CONTROLS })
  }, {
    additionalProperties: false,
    examples: [{
      subject: 'How was your order, {{customerName}}?',
      body: 'Hi {{customerName}},\n\nTell us about {{orderId}}:\n\n{{productList}}'
    }]
  }),
  response: { 200: Template, ...authErrors }
}

export const resetTemplate = {
  tags: ['email'],
  summary: 'Go back to the built-in default template; answers with the template now in use',
  description: 'Appends `email_template.updated` with `custom: false`. Resetting a template that is already the default changes nothing.',
  params: KeyParams,
  response: { 200: Template, ...authErrors }
}

const Outcome = Type.Object({
  messageId: Type.String(),
  status: Status,
  reason: Type.String()
})

export const sendTest = {
  tags: ['email'],
  summary: 'Send a template with sample values to an address, through the same path as real mail',
  description: 'The suppression list applies and the mail is logged with kind `test`.',
  body: Type.Object({ templateKey: TemplateKeyField, to: Email }, {
    additionalProperties: false,
    examples: [{ templateKey: 'review_request', to: 'owner@shop.example' }]
  }),
  response: { 200: Outcome, ...authErrors }
}

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) })
const Html = Type.String({ description: 'An HTML page for people' })

export const unsubscribePage = {
  tags: ['email'],
  summary: 'The page behind the visible unsubscribe link: says whose mail stops and asks to confirm',
  security: [],
  params: TokenParams,
  produces: ['text/html'],
  response: { 200: Html, 400: ErrorBody, 404: ErrorBody, 429: ErrorBody }
}

export const unsubscribe = {
  tags: ['email'],
  summary: 'One-click unsubscribe (RFC 8058): the address of the mail the token came with stops getting this store\'s mail',
  description: 'Mailbox providers POST `List-Unsubscribe=One-Click` here (any body is accepted); the confirmation page posts ' +
    'the same. Idempotent; an address already suppressed keeps its reason.',
  security: [],
  params: TokenParams,
  produces: ['text/html'],
  response: { 200: Html, 400: ErrorBody, 404: ErrorBody, 429: ErrorBody }
}
