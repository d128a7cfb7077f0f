import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, PageQuery, Paged } from '../../schemas.js'

/** A year: the longest wait between two steps. */
export const MAX_DELAY_HOURS = 8760

const StepTemplate = Type.Union([Type.Literal('review_request'), Type.Literal('review_reminder')])

const StepInput = Type.Object({
  delayHours: Type.Integer({
    minimum: 0,
    maximum: MAX_DELAY_HOURS,
    description: 'Hours after fulfilment (first step) or after the step before'
  }),
  templateKey: StepTemplate,
  stopWhen: Type.Optional(
    Type.Union([Type.Literal('reviewed'), Type.Null()], { description: '`reviewed`: the step is not sent once the order has a review' })
  )
}, { additionalProperties: false })

const SequenceInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  steps: Type.Array(StepInput, { minItems: 1, maxItems: 5 }),
  active: Type.Optional(Type.Boolean({ description: 'At most one sequence of a store is active (409 otherwise). Omitted: false' }))
}, {
  additionalProperties: false,
  examples: [{
    name: 'Three touches',
    active: true,
    steps: [{ delayHours: 72, templateKey: 'review_request' }, { delayHours: 96, templateKey: 'review_reminder', stopWhen: 'reviewed' }, {
      delayHours: 168,
      templateKey: 'review_reminder',
      stopWhen: 'reviewed'
    }]
  }]
})

export const Sequence = Type.Object({
  id: Type.String(),
  name: Type.String(),
  active: Type.Boolean(),
  steps: Type.Array(
    Type.Object({ delayHours: Type.Integer(), templateKey: StepTemplate, stopWhen: Type.Union([Type.Literal('reviewed'), Type.Null()]) })
  ),
  createdAt: DateTime,
  updatedAt: DateTime
})

const tags = ['email-sequences']

export const listSequences = {
  tags,
  summary: 'List the review-request sequences of this store',
  querystring: Type.Object({ ...PageQuery, updatedSince: Type.Optional(Type.String({ format: 'date-time' })) }),
  response: { 200: Paged(Sequence), ...authErrors }
}

export const getSequence = { tags, summary: 'One review-request sequence', params: IdParams, response: { 200: Sequence, ...authErrors } }

export const createSequence = {
  tags,
  summary: 'Create a review-request sequence; an active one replaces the single configured delay',
  description: 'Orders fulfilled while it is active are scheduled for its first step; each step sent schedules the next. ' +
    'Appends `email_sequence.created`.',
  body: SequenceInput,
  response: { 201: Sequence, 409: authErrors[404], ...authErrors }
}

export const replaceSequence = {
  tags,
  summary: 'Replace a review-request sequence (name, steps, active)',
  description: 'Requests already under way follow the new steps from their next one. Appends `email_sequence.updated`.',
  params: IdParams,
  body: SequenceInput,
  response: { 200: Sequence, 409: authErrors[404], ...authErrors }
}

export const deleteSequence = {
  tags,
  summary: 'Delete a review-request sequence; requests under way stop after the step they are at',
  params: IdParams,
  response: { 204: Type.Null({ description: 'Deleted' }), ...authErrors }
}
