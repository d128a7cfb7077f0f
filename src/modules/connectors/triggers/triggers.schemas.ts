import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../../schemas.js'
import { EVENT_TYPES, TRIGGER_RESOURCES } from '../catalogue.js'
import { MAX_POLL_LIMIT, DEFAULT_POLL_LIMIT } from './triggers.service.js'

const Item = Type.Object({
  id: Type.String({ description: 'The event id (`evt_…`); never changes, so platforms de-duplicate on it' }),
  type: Type.String({ description: 'The event type, e.g. `review.created`' }),
  createdAt: DateTime
}, {
  additionalProperties: true,
  description:
    'The event\'s data flattened beside `id`, `type` and `createdAt`; the record\'s own id is under the trigger\'s id field (`reviewId`, `orderId`, …)'
})

export const me = {
  tags: ['connectors'],
  summary:
    'Who this credential is: organization, store environment and authority (connection tests and labels); any valid credential may call it',
  response: {
    200: Type.Object({
      organization: Type.Object({ id: Type.String(), name: Type.String() }),
      storeEnv: Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String() }),
      credential: Type.Object({
        type: Type.Union([Type.Literal('api_key'), Type.Literal('oauth')]),
        role: Type.String(),
        scopes: Type.Array(Type.String(), { description: 'Empty: unrestricted' }),
        person: Type.Union([
          Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
          Type.Null()
        ], { description: 'The person who granted an OAuth connection; null for API keys' })
      })
    }),
    ...authErrors
  }
}

export const catalogue = {
  tags: ['connectors'],
  summary: 'The trigger catalogue: every event type that can be polled or subscribed to, with a sample item',
  response: {
    200: Type.Array(Type.Object({
      key: Type.String({ description: 'The event type; poll it at /connectors/triggers/{key}' }),
      label: Type.String(),
      description: Type.String(),
      resource: Type.String({ enum: [...TRIGGER_RESOURCES], description: 'Polling or subscribing needs `<resource>:read`' }),
      sample: Item
    })),
    ...authErrors
  }
}

export const poll = {
  tags: ['connectors'],
  summary: 'Poll a trigger: the newest events of one type in this store, newest first (needs read scope on the event\'s resource)',
  params: Type.Object({ event: Type.String({ maxLength: 80, description: EVENT_TYPES.join(', ') }) }),
  querystring: Type.Object({
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULT_POLL_LIMIT,
        description: `How many items; values above ${MAX_POLL_LIMIT} are clamped to ${MAX_POLL_LIMIT}`
      })
    )
  }),
  response: { 200: Type.Array(Item), ...authErrors }
}
