'use strict'

const { apiUrl } = require('../lib/api')
const { verifyDelivery, TOLERANCE_SECONDS } = require('../lib/signature')

/** The newest items of one event type, newest first; Zapier de-duplicates on `id` (the event id). */
const pollEvents = (eventType) => async (z) => {
  const response = await z.request({ url: apiUrl(`/connectors/triggers/${eventType}`), params: { limit: 100 } })
  return response.data
}

/** A polling trigger over one event type of the catalogue (`GET /v1/connectors/triggers`). */
const pollingTrigger = ({ key, eventType, noun, label, description, sample, outputFields }) => ({
  key,
  noun,
  display: { label, description },
  operation: { type: 'polling', perform: pollEvents(eventType), sample, outputFields }
})

/** Zap turned on: one REST hook for this event type; the answer (with its secret) becomes `subscribeData`. */
const subscribe = (eventType) => async (z, bundle) => {
  const response = await z.request({
    method: 'POST',
    url: apiUrl('/connectors/hooks'),
    body: { targetUrl: bundle.targetUrl, event: eventType }
  })
  return response.data
}

/** Zap turned off. The API answers 204 again for a hook already deleted, so Zapier's retries are harmless. */
const unsubscribe = async (z, bundle) => {
  await z.request({ method: 'DELETE', url: apiUrl(`/connectors/hooks/${encodeURIComponent(bundle.subscribeData.id)}`) })
  return {}
}

/**
 * A delivery is one item in the polling shape. One not signed with this hook's secret is dropped, so a leaked
 * target URL cannot start Zaps, and so is one signed more than 300 seconds away from now, so a captured delivery
 * cannot be replayed.
 */
const receive = async (z, bundle) => {
  if (!verifyDelivery(bundle.rawRequest, bundle.subscribeData && bundle.subscribeData.secret)) {
    z.console.log(`Dropped a delivery without a valid x-service-signature-v2 signed within ${TOLERANCE_SECONDS} seconds of now`)
    return []
  }
  return [bundle.cleanedRequest]
}

/** An instant trigger: REST hook subscribe/unsubscribe, with polling as `performList` for samples and tests. */
const hookTrigger = ({ key, eventType, noun, label, description, sample, outputFields }) => ({
  key,
  noun,
  display: { label, description },
  operation: {
    type: 'hook',
    performSubscribe: subscribe(eventType),
    performUnsubscribe: unsubscribe,
    perform: receive,
    performList: pollEvents(eventType),
    sample,
    outputFields
  }
})

module.exports = { pollEvents, pollingTrigger, hookTrigger }
