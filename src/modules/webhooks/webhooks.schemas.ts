import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../schemas.js'
import { PLATFORMS } from './platform-signatures.js'

const TAGS = ['webhooks']

const Platform = Type.Union([Type.Literal(PLATFORMS[0]), Type.Literal(PLATFORMS[1]), Type.Literal(PLATFORMS[2])], { description: 'The store platform that sends the notifications' })

const PlatformWebhook = Type.Object({
  platform: Platform,
  receiverUrl: Type.String({ description: 'Where to point the platform\'s webhooks (topics: products and orders, created, updated, deleted, fulfilled)' }),
  updatedAt: DateTime
})

export const setPlatformSecret = {
  tags: TAGS,
  summary: 'Set the secret a platform signs its webhooks with; it is stored encrypted and never shown again',
  description: 'Shopify: the app\'s client secret (or the secret shown with webhooks made in the admin). WooCommerce: the ' +
    'webhook\'s Secret. BigCommerce: the signing secret of the hook (a `whsec_…` value is used as the Standard ' +
    'Webhooks spec says). Setting it again replaces it. See docs/sync.md.',
  params: Type.Object({ platform: Platform }),
  body: Type.Object({
    secret: Type.String({ minLength: 8, maxLength: 500, description: 'As the platform shows it' })
  }, { additionalProperties: false, examples: [{ secret: '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' }] }),
  response: { 200: PlatformWebhook, ...authErrors }
}

export const listPlatformSecrets = {
  tags: TAGS,
  summary: 'The platforms this store receives webhooks from (never their secrets)',
  response: { 200: Type.Object({ data: Type.Array(PlatformWebhook) }), ...authErrors }
}

export const receivePlatformWebhook = {
  tags: TAGS,
  summary: 'Receiver for a platform\'s own webhooks (public; authenticated by the platform\'s signature)',
  description: 'Called by Shopify, WooCommerce or BigCommerce, not by API clients. The raw body must carry the ' +
    'platform\'s signature made with the secret set by PUT /webhooks/platforms/{platform}; otherwise 401 ' +
    '`invalid_signature`. A delivery id already received answers 200 with `duplicate: true` and changes nothing. ' +
    'Product and order topics are applied as PUT /products and PUT /orders items; an item older (by the platform\'s ' +
    '`updated_at`) than the stored record is left alone.',
  params: Type.Object({
    platform: Platform,
    storeEnvId: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_]+$' })
  }),
  response: {
    200: Type.Object({
      received: Type.Boolean(),
      duplicate: Type.Boolean({ description: 'true: this delivery id was already received; nothing was done' }),
      outcome: Type.Union([Type.Literal('applied'), Type.Literal('ignored'), Type.Literal('rejected'), Type.Null()], {
        description: 'applied; ignored (a topic that is not synced, or nothing to delete); rejected (the record failed the item rules)'
      })
    })
  }
}
