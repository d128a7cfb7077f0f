import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Seconds a delivery verifies either side of its timestamp: the service's own tolerance
 * (docs/contract/webhooks-and-delivery.md#signatures), so a captured delivery replayed later stops verifying. The same
 * rule as the service's verifier (src/modules/delivery/verify.ts) and the SDK's verifyWebhook, which this package,
 * installed into n8n on its own, cannot import.
 */
export const TOLERANCE_SECONDS = 300

export const SIGNATURE_HEADER = 'x-service-signature-v2'

/**
 * `x-service-signature-v2: t=<unix>,v1=<hex>`, the HMAC-SHA256 of `<t>.<raw body>` keyed with the hook's secret
 * (docs/contract/webhooks-and-delivery.md#signatures). True only for a delivery signed with `secret` at a time within
 * TOLERANCE_SECONDS of `now` (milliseconds). Every `v1` is compared, in constant time, so the time taken says nothing
 * of which matched.
 */
export function verifyDelivery (header: unknown, rawBody: Buffer | string, secret: string, now = Date.now()): boolean {
  if (typeof header !== 'string' || !secret) return false
  const fields = header.split(',').map((field) => /^(t|v1)=(.+)$/.exec(field.trim())).filter((m) => m !== null)
  const t = fields.filter(([, key, value]) => key === 't' && /^\d{1,12}$/.test(value)).at(-1)?.[2]
  const signatures = fields.filter(([, key, value]) => key === 'v1' && /^[0-9a-f]{64}$/i.test(value)).map(([, , value]) => value)
  if (t === undefined || signatures.length === 0) return false
  if (Math.abs(Math.floor(now / 1000) - Number(t)) > TOLERANCE_SECONDS) return false
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest()
  let matched = false
  for (const signature of signatures) matched = timingSafeEqual(Buffer.from(signature, 'hex'), expected) || matched
  return matched
}
