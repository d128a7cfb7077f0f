import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams } from '../../../schemas.js'
import { Webhook } from './outbound-webhooks.schemas.js'
import { MAX_REPLAY } from './operations.service.js'

const TAGS = ['outbound-webhooks']

export const redeliver = {
  tags: TAGS,
  summary: 'Send one delivery\'s event again, as a new delivery with the same event id',
  description: 'For a delivery that failed (or one the receiver lost). The webhook must be active (enable a disabled one first).',
  params: Type.Object({
    id: IdParams.properties.id,
    deliveryId: Type.String({ minLength: 1, maxLength: 64, description: '`dlv_…` from the delivery log' })
  }),
  response: {
    202: Type.Object({
      deliveryId: Type.String({ description: 'The new delivery, `dlv_…`' }),
      eventId: Type.String({ description: 'The same event id as before' })
    }),
    409: authErrors[400],
    ...authErrors
  }
}

export const replay = {
  tags: TAGS,
  summary: 'Re-send the stored events of a time range to this webhook (recovering from an outage)',
  description:
    `Queues, oldest first, every stored event created in [since, until) that the webhook subscribes to (of \`types\` when given), with their original ids, so a receiver that already processed one de-duplicates it. At most ${MAX_REPLAY} events per call: replay a longer outage in shorter ranges. The webhook must be active.`,
  params: IdParams,
  body: Type.Object({
    since: Type.String({ format: 'date-time', description: 'Start of the range (inclusive)' }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'End of the range (exclusive); default now' })),
    types: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 50, description: 'Only these event types' }))
  }, {
    additionalProperties: false,
    examples: [{ since: '2026-11-20T08:00:00Z', until: '2026-11-20T14:30:00Z', types: ['review.created', 'review.published'] }]
  }),
  response: {
    202: Type.Object({
      queued: Type.Integer(),
      since: DateTime,
      until: DateTime,
      firstEventId: Type.Union([Type.String(), Type.Null()]),
      lastEventId: Type.Union([Type.String(), Type.Null()])
    }),
    409: authErrors[400],
    ...authErrors
  }
}

export const enable = {
  tags: TAGS,
  summary: 'Enable a disabled webhook again (its failure count starts over); an active one is left as it is',
  params: IdParams,
  response: { 200: Webhook, 409: authErrors[400], ...authErrors }
}
