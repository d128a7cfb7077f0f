'use strict'

const crypto = require('node:crypto')

/** Zapier hands a hook's raw request over with headers renamed `Http-X-Service-Signature-V2`; match any form. */
const headerOf = (headers, name) => {
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(headers || {})) {
    const plain = key.toLowerCase().replace(/^http-/, '').replace(/_/g, '-')
    if (plain === wanted) return Array.isArray(value) ? value[0] : value
  }
  return undefined
}

/**
 * Seconds a delivery verifies either side of its timestamp: the service's own tolerance
 * (docs/contract/webhooks-and-delivery.md#signatures), so a captured delivery stops verifying. The same rule as the
 * service's verifier (src/delivery/verify.ts), which this package, installed on its own in Zapier, cannot import.
 */
const TOLERANCE_SECONDS = 300

/**
 * `x-service-signature-v2: t=<unix>,v1=<hex>`, the HMAC-SHA256 of `<t>.<raw body>` keyed with the hook's secret
 * (docs/contract/webhooks-and-delivery.md#signatures). True only for a delivery signed with this hook's secret, at a
 * time within TOLERANCE_SECONDS of `now` (milliseconds).
 */
const verifyDelivery = (rawRequest, secret, now = Date.now()) => {
  if (!rawRequest || !secret) return false
  const header = headerOf(rawRequest.headers, 'x-service-signature-v2')
  if (typeof header !== 'string') return false
  const parts = Object.fromEntries(header.split(',').map((part) => part.trim().split('=')))
  if (!/^\d+$/.test(parts.t || '') || !/^[0-9a-f]{64}$/.test(parts.v1 || '')) return false
  if (Math.abs(Math.floor(now / 1000) - Number(parts.t)) > TOLERANCE_SECONDS) return false
  const expected = crypto.createHmac('sha256', secret).update(`${parts.t}.${rawRequest.content}`).digest()
  return crypto.timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'))
}

module.exports = { verifyDelivery, TOLERANCE_SECONDS }
