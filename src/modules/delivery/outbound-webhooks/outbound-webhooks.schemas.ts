import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../../schemas.js'
import { listEventsSchema } from '../../events/index.js'

const TAGS = ['outbound-webhooks']

/** The event log is the `events` module's; it is served here too, under this resource's tag. */
export const listEvents = { ...listEventsSchema, tags: TAGS }

const webhookFields = {
  id: Type.String({ description: '`whk_…`' }),
  url: Type.String(),
  events: Type.Array(Type.String(), {
    description: 'Event types, or `["*"]` for every type (only for a creator that may read every resource)'
  }),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('retired')], {
    description: 'disabled: failed for about three days (see statusReason); retired: deleted, or the receiver answered 410'
  }),
  statusReason: Type.Union([Type.String(), Type.Null()]),
  statusChangedAt: NullableDateTime,
  consecutiveFailures: Type.Integer(),
  createdAt: DateTime
}
export const Webhook = Type.Object(webhookFields)

export const createWebhook = {
  tags: TAGS,
  summary: 'Register an outbound webhook; its signing secret is in this response only',
  body: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s); not a private, loopback or link-local address' }),
    events: Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
      minItems: 1,
      maxItems: 50,
      description: 'Event types, or `["*"]`: every type whose resource the credential may read (`review.*`: `reviews:read`, …), fixed now'
    }),
    description: Type.Optional(Type.String({ maxLength: 500 }))
  }, {
    additionalProperties: false,
    examples: [{
      url: 'https://hooks.shop.example/evidence',
      events: ['review.created', 'review.published'],
      description: 'Moderation queue'
    }]
  }),
  response: {
    201: Type.Object({
      ...webhookFields,
      secret: Type.String({
        description: '`whsec_…`: shown once; to rotate, register a second webhook and retire the first. It keys ' +
          '`x-service-signature-v2` as the string given and the Standard Webhooks `webhook-signature` as the base64 after ' +
          '`whsec_`, decoded (docs/contract/webhooks-and-delivery.md#signatures).'
      })
    }),
    ...authErrors
  }
}

export const listWebhooks = {
  tags: TAGS,
  summary: 'List outbound webhooks (never their secrets)',
  querystring: Type.Object({
    ...PageQuery,
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('retired')], {
        description: 'Default: active and disabled'
      })
    ),
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only endpoints created, or whose status changed, at or after this instant' })
    )
  }),
  response: { 200: Paged(Webhook), ...authErrors }
}

export const getWebhook = {
  tags: TAGS,
  summary: 'One outbound webhook (never its secret)',
  params: IdParams,
  response: { 200: Webhook, ...authErrors }
}

export const retireWebhook = {
  tags: TAGS,
  summary: 'Retire an outbound webhook: nothing more is sent to it; retiring again changes nothing',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}

export const Attempt = Type.Object({
  id: Type.String({ description: '`att_…`' }),
  deliveryId: Type.String({ description: '`dlv_…`, also sent as `x-service-delivery-id`' }),
  eventId: Type.String(),
  eventType: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer({ description: '1 for the first attempt of a delivery' }),
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('retrying'), Type.Literal('failed')]),
  responseCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  nextRetryAt: NullableDateTime,
  at: DateTime
})

export const listDeliveries = {
  tags: TAGS,
  summary: 'Delivery attempts to one webhook, newest first',
  params: IdParams,
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only attempts made at or after this instant (an attempt does not change once made)'
      })
    )
  }),
  response: { 200: Paged(Attempt), ...authErrors }
}
