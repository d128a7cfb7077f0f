'use strict'

const { apiUrl } = require('../lib/api')

/** The newest items of one event type, newest first; Zapier de-duplicates on `id` (the event id). */
const pollEvents = (eventType) => async (z) => {
  const response = await z.request({ url: apiUrl(`/connectors/triggers/${eventType}`), params: { limit: 100 } })
  return response.data
}

/** A polling trigger over one event type of the catalogue (`GET /v1/connectors/triggers`). */
const pollingTrigger = ({ key, eventType, noun, label, description, sample, outputFields, hidden = false }) => ({
  key,
  noun,
  display: { label, description, hidden },
  operation: { type: 'polling', perform: pollEvents(eventType), sample, outputFields }
})

module.exports = { pollEvents, pollingTrigger }
