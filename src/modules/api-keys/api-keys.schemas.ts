import { Type } from '@sinclair/typebox'
import { KEY_ROLES } from '../../lib/permissions.js'
import { authErrors, IdParams, NullableDateTime, DateTime, PageQuery, Paged } from '../../schemas.js'

const apiKeyFields = {
  id: Type.String(),
  name: Type.String(),
  role: Type.String(),
  scopes: Type.Array(Type.String(), { description: 'Empty: unrestricted' }),
  prefix: Type.String({ description: '`svc_` and the first 8 characters of the secret, for recognising a key' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  createdAt: DateTime,
  createdBy: Type.Union([Type.String(), Type.Null()]),
  expiresAt: NullableDateTime,
  firstUsedAt: NullableDateTime,
  lastUsedAt: NullableDateTime,
  revokedAt: NullableDateTime
}
export const ApiKey = Type.Object(apiKeyFields)

export const createKey = {
  tags: ['api-keys'],
  summary: 'Create an API key; the secret is in this response only',
  body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: Type.Union(KEY_ROLES.map((r) => Type.Literal(r))),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 80,
        description: '`read`, `write`, `<resource>:read`, `<resource>:write`; empty or absent: unrestricted'
      })
    ),
    expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 UTC; in the future and within 5 years' }))
  }, {
    additionalProperties: false,
    examples: [{ name: 'Storefront sync', role: 'editor', scopes: ['products:write', 'orders:write'], expiresAt: '2027-06-30T00:00:00Z' }]
  }),
  response: {
    201: Type.Object({ ...apiKeyFields, secret: Type.String({ description: 'Shown once; store it now' }) }),
    ...authErrors
  }
}

export const listKeys = {
  tags: ['api-keys'],
  summary: 'List the organization\'s API keys (never their secrets)',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(ApiKey), ...authErrors }
}

export const getKey = {
  tags: ['api-keys'],
  summary: 'One API key',
  params: IdParams,
  response: { 200: ApiKey, ...authErrors }
}

export const revokeKey = {
  tags: ['api-keys'],
  summary: 'Revoke a key at once (no grace period); revoking again changes nothing',
  params: IdParams,
  response: { 200: ApiKey, ...authErrors }
}
