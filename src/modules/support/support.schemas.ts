import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, PageQuery, Paged } from '../../schemas.js'

const SupportRequest = Type.Object({
  id: Type.String(),
  storeEnvId: Type.String(),
  credential: Type.String({ description: 'Who asked: `api_key:<id>`, `oauth:<grant id>` or `person:<id>`' }),
  subject: Type.String(),
  body: Type.String(),
  failedRequestIds: Type.Array(Type.String(), {
    description: 'The `x-request-id` of the credential\'s most recent 4xx and 5xx answers, newest first (at most 20)'
  }),
  mailStatus: Type.String({ description: 'queued, sent, failed, or not_configured (no SUPPORT_EMAIL: kept here only)' }),
  createdAt: DateTime
})

export const createRequest = {
  tags: ['support'],
  summary: 'Ask for help: the request carries the store, the credential and its recent failed request ids',
  description: 'Mailed to the operator\'s SUPPORT_EMAIL. Every response carries `x-request-id`; the ids of this ' +
    'credential\'s recent failed requests are attached without being sent.',
  body: Type.Object({
    subject: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    body: Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' })
  }, {
    additionalProperties: false,
    examples: [{
      subject: 'Imports fail with invalid_request',
      body: 'Since this morning our nightly review import is refused; see the failed request ids.'
    }]
  }),
  response: { 201: SupportRequest, ...authErrors }
}

export const listRequests = {
  tags: ['support'],
  summary: 'The store\'s support requests, newest first',
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests made at or after this instant' }))
  }),
  response: { 200: Paged(SupportRequest), ...authErrors }
}
