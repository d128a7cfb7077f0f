import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, PageQuery, Paged } from '../../../schemas.js'
import { Attempt } from '../outbound-webhooks/outbound-webhooks.schemas.js'

const ProviderName = Type.Union([Type.Literal('klaviyo'), Type.Literal('mailchimp'), Type.Literal('webhook')])
const Params = Type.Object({ provider: ProviderName })
const tags = ['email']

const ProviderView = Type.Object({
  provider: ProviderName,
  baseUrl: Type.String(),
  listId: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  statusReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it is off: turned off, or disabled after about three days of failed deliveries'
  }),
  apiKeyLast4: Type.Union([Type.String(), Type.Null()], { description: 'The key itself is kept encrypted and never returned' }),
  signingSecret: Type.Optional(
    Type.String({ description: 'webhook only, shown once when first configured: verify `x-service-signature-v2` with it' })
  ),
  createdAt: DateTime
})

export const getProvider = {
  tags,
  summary: 'An email provider of this store and the events pushed to it',
  params: Params,
  response: { 200: ProviderView, ...authErrors }
}

export const putProvider = {
  tags,
  summary: 'Configure an email provider (klaviyo, mailchimp or a signed webhook) to receive the store\'s events',
  description: 'Events go through the durable outbox with the retries of outbound webhooks, in each provider\'s own format: ' +
    'Klaviyo Create Event (`POST {baseUrl}/api/events/`), Mailchimp member events (`POST {baseUrl}/3.0/lists/{listId}/members/{md5(email)}/events`), ' +
    'or the outbound-webhook body and signature. An omitted `apiKey` keeps the stored one; `events` defaults to the loyalty rewards.',
  params: Params,
  body: Type.Object({
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    baseUrl: Type.Optional(
      Type.String({ format: 'uri', maxLength: 2048, description: 'Klaviyo: https://a.klaviyo.com; Mailchimp: from the key\'s data centre' })
    ),
    listId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' })),
    events: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description:
          'Event types whose resource the caller may read (`customer.*`: `customers:read`, …); omitted: the loyalty rewards (`loyalty:read`)'
      })
    ),
    enabled: Type.Optional(Type.Boolean())
  }, {
    additionalProperties: false,
    examples: [{ apiKey: 'pk_live_0123456789abcdef', events: ['loyalty.referral_reward', 'loyalty.birthday_reward'] }]
  }),
  response: { 200: ProviderView, ...authErrors }
}

export const deleteProvider = {
  tags,
  summary: 'Remove an email provider: no more events are pushed to it and its API key is forgotten',
  params: Params,
  response: { 204: Type.Null({ description: 'Removed' }), ...authErrors }
}

export const listProviderDeliveries = {
  tags,
  summary: 'Delivery attempts to an email provider, newest first',
  params: Params,
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only attempts made at or after this instant (an attempt never changes once made)' })
    )
  }),
  response: { 200: Paged(Attempt), ...authErrors }
}
