import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../schemas.js'
import { MAX_ORIGIN_LENGTH, MAX_ORIGINS } from '../../lib/origins.js'

export const Store = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.String({ description: 'free, growth or pro' }),
  subscription: Type.Object({
    status: Type.String({ description: 'trialing, active, past_due or lapsed' }),
    currentPeriodEnd: NullableDateTime
  }),
  allowedOrigins: Type.Array(Type.String()),
  createdAt: DateTime
})

export const listStores = {
  tags: ['account'],
  summary:
    'The store environments this credential can use; allowed for any valid credential, whatever its scopes, and without x-store-env-id',
  description:
    'The organization\'s own stores (those of the grant, for an OAuth token), then, for a person\'s OAuth token, the partner clients\' stores it was granted (see GET /partner/clients); API keys reach their own organization\'s stores only.',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(Store), ...authErrors }
}

const Origins = Type.Object({
  origins: Type.Array(
    Type.String({ minLength: 1, maxLength: MAX_ORIGIN_LENGTH, description: 'scheme://host[:port], e.g. https://shop.example' }),
    {
      maxItems: MAX_ORIGINS,
      description: 'The browser origins the storefront answers; an empty list closes the storefront'
    }
  )
}, { examples: [{ origins: ['https://shop.example', 'https://www.shop.example'] }] })

const ORIGINS_NOTE = 'Owner and admin keys, or an OAuth token granted this store with an admin role and `account:write`. ' +
  'Not in the organization or the grant: 404 `store_env_not_found`.'

export const getOrigins = {
  tags: ['account'],
  summary: 'The origins whose browser pages may call this store\'s storefront routes (any role; lapsed store: subscription_expired)',
  params: IdParams,
  response: { 200: Origins, ...authErrors }
}

export const putOrigins = {
  tags: ['account'],
  summary: 'Replace the store\'s allowed origins (owner and admin); effective on the next storefront request',
  description: 'Each origin is checked and normalised as browsers send it: http or https, host (IDN in punycode, ' +
    'lower case) and port when not the default; no path, query, fragment, user info, wildcard or `null`. Duplicates ' +
    'are dropped, order is kept, at most 50. Audited as `store.origins_updated`. ' + ORIGINS_NOTE,
  params: IdParams,
  body: Origins,
  response: { 200: Origins, ...authErrors }
}

const Member = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  joinedAt: DateTime
})

export const listMembers = {
  tags: ['account'],
  summary: 'People of the organization and their roles',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(Member), ...authErrors }
}

export const removeMember = {
  tags: ['account'],
  summary: 'Remove a person from the organization (owner and admin); takes effect on their next request',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors, 409: authErrors[400] }
}

export const auditLog = {
  tags: ['account'],
  summary: 'The security audit log, newest first (owner and admin)',
  querystring: Type.Object({ ...PageQuery, action: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. api_key.created' })) }),
  response: {
    200: Paged(Type.Object({
      id: Type.String(),
      at: DateTime,
      action: Type.String(),
      actor: Type.String(),
      subject: Type.Union([Type.String(), Type.Null()]),
      ip: Type.Union([Type.String(), Type.Null()]),
      details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])
    })),
    ...authErrors
  }
}
