import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams } from '../../schemas.js'

const TAGS = ['events']

const VISIBILITY = 'Needs `events:read` or `outbound-webhooks:read`, and returns only the events of resources the ' +
  'credential may read (`review.*`: `reviews:read`, `order.*`: `orders:read`, `product.*`: `products:read`, ' +
  '`loyalty.*`: `loyalty:read`).'

export const Event = Type.Object({
  id: Type.String({ description: '`evt_…`; ids increase with time within a store' }),
  type: Type.String({ description: 'Dotted, e.g. `review.created`; the set is open, ignore types you do not know' }),
  createdAt: DateTime,
  storeEnvId: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown())
})

export const listEvents = {
  tags: TAGS,
  summary: 'The event log, oldest first, as a cursor envelope',
  description:
    'Start without `since`, then pass back `next_cursor` until it is null. `since` also takes the id of the last event you processed, to resume without gaps or repeats. ' +
    VISIBILITY,
  querystring: Type.Object({
    since: Type.Optional(Type.String({ maxLength: 40, description: 'A `next_cursor`, or an event id (`evt_…`)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, default: 100, description: 'At most 500' }))
  }),
  response: {
    200: Type.Object({ events: Type.Array(Event), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
    ...authErrors
  }
}

export const getEvent = {
  tags: TAGS,
  summary: 'One event of the log; 404 for an event of a resource the credential may not read',
  description: VISIBILITY,
  params: IdParams,
  response: { 200: Event, ...authErrors }
}
