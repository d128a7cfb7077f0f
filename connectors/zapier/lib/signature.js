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
 * `x-service-signature-v2: t=<unix>,v1=<hex>`, the HMAC-SHA256 of `<t>.<raw body>` keyed with the hook's secret
 * (decisions.md section 8). True only for a delivery signed with this hook's secret.
 */
const verifyDelivery = (rawRequest, secret) => {
  if (!rawRequest || !secret) return false
  const header = headerOf(rawRequest.headers, 'x-service-signature-v2')
  if (typeof header !== 'string') return false
  const parts = Object.fromEntries(header.split(',').map((part) => part.trim().split('=')))
  if (!/^\d+$/.test(parts.t || '') || !/^[0-9a-f]{64}$/.test(parts.v1 || '')) return false
  const expected = crypto.createHmac('sha256', secret).update(`${parts.t}.${rawRequest.content}`).digest()
  return crypto.timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'))
}

module.exports = { verifyDelivery }
