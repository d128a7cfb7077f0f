import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../schemas.js'

export const Store = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.String({ description: 'free, growth or pro' }),
  subscription: Type.Object({ status: Type.String({ description: 'trialing, active, past_due or lapsed' }), currentPeriodEnd: NullableDateTime }),
  allowedOrigins: Type.Array(Type.String()),
  createdAt: DateTime
})

export const listStores = {
  tags: ['account'],
  summary: 'The store environments this credential can use; allowed for any valid credential, whatever its scopes, and without x-store-env-id',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(Store), ...authErrors }
}

const Member = Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]), role: Type.String(), joinedAt: DateTime })

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
