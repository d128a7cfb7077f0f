import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../schemas.js'
import { PLATFORMS } from './platform-signatures.js'

const TAGS = ['webhooks']

const Platform = Type.Union([Type.Literal(PLATFORMS[0]), Type.Literal(PLATFORMS[1]), Type.Literal(PLATFORMS[2])], {
  description: 'The store platform that sends the notifications'
})

const PlatformWebhook = Type.Object({
  platform: Platform,
  receiverUrl: Type.String({
    description: 'Where to point the platform\'s webhooks (topics: products and orders, created, updated, deleted, fulfilled)'
  }),
  updatedAt: DateTime
})

const ApiCredentialsState = Type.Union([
  Type.Object({ updatedAt: DateTime }),
  Type.Null()
], { description: 'BigCommerce only: when the API credentials were set (they are never shown), or null when they are not set' })

const ListedPlatform = Type.Object({
  platform: Platform,
  receiverUrl: PlatformWebhook.properties.receiverUrl,
  updatedAt: Type.String({ format: 'date-time', description: 'The last change to this platform\'s secret or API credentials' }),
  secretSet: Type.Boolean({ description: 'Whether the signing secret is set (without it every delivery is refused)' }),
  apiCredentials: ApiCredentialsState
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
  summary: 'The platforms this store receives webhooks from: whether their secret and API credentials are set, never the values',
  response: { 200: Type.Object({ data: Type.Array(ListedPlatform) }), ...authErrors }
}

export const setBigCommerceCredentials = {
  tags: TAGS,
  summary:
    'Set the BigCommerce API credentials that read the products and orders BigCommerce\'s webhooks name; stored encrypted and never shown again',
  description: 'BigCommerce\'s webhooks carry only a record\'s id. With these credentials each verified `store/product/created`, ' +
    '`store/product/updated`, `store/order/created`, `store/order/updated` and `store/order/statusUpdated` delivery is read from ' +
    'the store\'s Management API (`GET /stores/{store_hash}/v3/catalog/products/{id}`, `GET /stores/{store_hash}/v2/orders/{id}` ' +
    'and its `/products`) and applied as a PUT /products or PUT /orders item. Create a store-level API account in the ' +
    'BigCommerce control panel (Settings › Store-level API accounts; older panels: Advanced Settings › API Accounts) with ' +
    'read-only Products and Orders scopes; its API path holds the store hash. Setting them again replaces them. See docs/sync.md.',
  body: Type.Object({
    storeHash: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The `{store_hash}` of the API path `https://api.bigcommerce.com/stores/{store_hash}/v3/`: 3 to 32 lowercase letters and digits'
    }),
    accessToken: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'The API account\'s access token (sent as `X-Auth-Token`), 20 to 200 characters without spaces'
    }),
    storefrontUrl: Type.Optional(Type.String({
      format: 'uri',
      maxLength: 1000,
      description:
        'The storefront\'s address, e.g. `https://shop.example.com`: a product\'s `url` is it plus the product\'s `custom_url`. Without it products have no url'
    }))
  }, {
    additionalProperties: false,
    examples: [{ storeHash: 'id30h7ohwf', accessToken: 'abcdefghij0123456789klmnopqrstu', storefrontUrl: 'https://shop.example.com' }]
  }),
  response: {
    200: Type.Object({
      platform: Type.Literal('bigcommerce'),
      receiverUrl: PlatformWebhook.properties.receiverUrl,
      apiCredentials: Type.Object({ updatedAt: DateTime })
    }),
    ...authErrors
  }
}

export const removeBigCommerceCredentials = {
  tags: TAGS,
  summary: 'Forget the BigCommerce API credentials: product and order deliveries are then acknowledged without being applied',
  response: { 204: Type.Null({ description: 'Removed' }), ...authErrors }
}

export const receivePlatformWebhook = {
  tags: TAGS,
  summary: 'Receiver for a platform\'s own webhooks (public; authenticated by the platform\'s signature)',
  description: 'Called by Shopify, WooCommerce or BigCommerce, not by API clients. The raw body must carry the ' +
    'platform\'s signature made with the secret set by PUT /webhooks/platforms/{platform}; otherwise 401 ' +
    '`invalid_signature`. A delivery id already received answers 200 with `duplicate: true` and changes nothing; one ' +
    'an earlier attempt is still applying answers 503 `service_unavailable`, so that the platform retries it. ' +
    'Product and order topics are applied as PUT /products and PUT /orders items; an item older (by the platform\'s ' +
    '`updated_at`) than the stored record is left alone. BigCommerce sends only ids: the record is read from its API with ' +
    'the credentials of PUT /webhooks/platforms/bigcommerce/credentials (without them the delivery is acknowledged and ' +
    'ignored, with the reason recorded); when that API cannot be read (401, 5xx, no answer) the answer is 503 ' +
    '`service_unavailable`, nothing is applied, and BigCommerce\'s retry of the same delivery is applied.',
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
