import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, PageQuery, Paged } from '../../schemas.js'

const Reason = Type.Union([Type.Literal('unsubscribed'), Type.Literal('bounced'), Type.Literal('complained'), Type.Literal('manual')], {
  description: '`unsubscribed` (the one-click link), `bounced`, `complained` or `manual`'
})

/** RFC 5321's limit on a path; the column is VARCHAR(320). */
export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 320 })

export const Suppression = Type.Object({
  email: Type.String({ description: 'Lower-cased' }),
  reason: Reason,
  createdAt: DateTime,
  updatedAt: DateTime
})

export const listSuppressions = {
  tags: ['email-suppressions'],
  summary: 'List the addresses no mail of this store goes to, most recently changed first',
  querystring: Type.Object({
    ...PageQuery,
    reason: Type.Optional(Reason),
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only suppressions added or changed at or after this instant' })
    )
  }),
  response: { 200: Paged(Suppression), ...authErrors }
}

export const addSuppression = {
  tags: ['email-suppressions'],
  summary: 'Stop every mail of this store to an address (or change why)',
  description: 'Idempotent: adding an address already on the list with the same reason changes nothing (200); a new one ' +
    'answers 201 and appends `email_suppression.created`, a changed reason `email_suppression.updated`.',
  body: Type.Object({ email: Email, reason: Reason }, {
    additionalProperties: false,
    examples: [{ email: 'ann@example.com', reason: 'manual' }]
  }),
  response: { 200: Suppression, 201: Suppression, ...authErrors }
}

export const removeSuppression = {
  tags: ['email-suppressions'],
  summary: 'Let mail reach an address again',
  description: 'Appends `email_suppression.deleted`.',
  params: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }) }),
  response: { 204: Type.Null({ description: 'Removed' }), ...authErrors }
}
