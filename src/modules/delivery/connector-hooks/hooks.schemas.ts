import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, PageQuery, Paged } from '../../../schemas.js'

const TAGS = ['connectors']

const hookFields = {
  id: Type.String({ description: '`hook_…`' }),
  targetUrl: Type.String(),
  event: Type.String({ description: 'The event type this hook receives, e.g. `review.created`' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
    description: 'disabled: deliveries failed for about three days'
  }),
  createdAt: DateTime
}
export const Hook = Type.Object(hookFields)

export const subscribe = {
  tags: TAGS,
  summary: 'Subscribe a REST hook (automation platforms): deliveries carry the polling item shape, signed',
  description:
    'Needs read scope on the event\'s resource (`review.*`: `reviews:read`, …) and `webhooks:write` or `connectors:write` (either one).',
  body: Type.Object({
    targetUrl: Type.String({ minLength: 1, maxLength: 2048 }),
    event: Type.String({ minLength: 1, maxLength: 80 })
  }, { examples: [{ targetUrl: 'https://hooks.zapier.com/hooks/standard/123/abc', event: 'review.created' }] }),
  response: {
    201: Type.Object({
      ...hookFields,
      secret: Type.String({
        description: '`whsec_…`, shown once: verifies `x-service-signature-v2` (keyed with the string as given) and the ' +
          'Standard Webhooks `webhook-signature` (keyed with the base64 after `whsec_`, decoded)'
      })
    }),
    ...authErrors
  }
}

export const listHooks = {
  tags: TAGS,
  summary: 'List the store\'s REST hooks',
  description: 'Needs `webhooks:read` or `connectors:read` (either one).',
  querystring: Type.Object({ ...PageQuery, targetUrl: Type.Optional(Type.String({ maxLength: 2048 })) }),
  response: { 200: Paged(Hook), ...authErrors }
}

export const getHook = {
  tags: TAGS,
  summary: 'One REST hook (404 once deleted)',
  description: 'Needs `webhooks:read` or `connectors:read` (either one).',
  params: IdParams,
  response: { 200: Hook, ...authErrors }
}

export const unsubscribe = {
  tags: TAGS,
  summary: 'Unsubscribe a REST hook; 204 again for a hook already deleted, 404 for an id this store never had',
  description: 'Needs `webhooks:write` or `connectors:write` (either one).',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}
