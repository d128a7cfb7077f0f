import { createHmac } from 'node:crypto'

/**
 * Delivery signatures, docs/contract/webhooks-and-delivery.md#signatures: `x-service-signature-v2: t=<unix>,v1=<hex>`
 * is HMAC-SHA256 keyed with the secret string as given, over `<t>.<raw body>`. Until the sunset the deprecated
 * body-only `x-service-signature` is sent too, with the RFC 8594 headers (docs/changelog.md#deprecations). Beside
 * them, the Standard Webhooks headers (standardwebhooks.com, spec "Signature scheme"): `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64>`, HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64 after `whsec_`, decoded.
 */
export const SIGNATURE_HEADER = 'x-service-signature-v2'
export const LEGACY_SIGNATURE_HEADER = 'x-service-signature'
export const LEGACY_SIGNATURE_SUNSET = Date.parse('2027-01-15T00:00:00Z')
/** When the body-only header was marked deprecated (changelog: Oct 2026). */
export const LEGACY_SIGNATURE_DEPRECATED = Date.parse('2026-10-15T00:00:00Z')

export const STANDARD_ID_HEADER = 'webhook-id'
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp'
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature'
const SECRET_PREFIX = 'whsec_'

/**
 * The Standard Webhooks key: the secret's part after `whsec_`, base64-decoded. Every secret the service has made is
 * `whsec_` and 32 base62 characters (delivery/subscriptions.ts, email-providers), which is canonical base64 of 24
 * bytes, the spec's smallest recommended key; the same string keys `x-service-signature-v2` as it always did.
 */
export function standardWebhooksKey (secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
}

/** `webhookId` names the delivery, the same on every retry of it (the spec's idempotency key). */
export function standardWebhookHeaders (secret: string, webhookId: string, body: string, now: number): Record<string, string> {
  const t = Math.floor(now / 1000)
  const signature = createHmac('sha256', standardWebhooksKey(secret)).update(`${webhookId}.${t}.${body}`).digest('base64')
  return { [STANDARD_ID_HEADER]: webhookId, [STANDARD_TIMESTAMP_HEADER]: String(t), [STANDARD_SIGNATURE_HEADER]: `v1,${signature}` }
}

export function hmacHex (secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex')
}

export function versioningUrl (publicUrl: string): string {
  return `${publicUrl}/docs/versioning`
}

/** The RFC 8594 headers of the body-only signature's deprecation; empty from the sunset instant on. */
export function deprecationHeaders (now: number, publicUrl: string): Record<string, string> {
  if (now >= LEGACY_SIGNATURE_SUNSET) return {}
  return {
    deprecation: new Date(LEGACY_SIGNATURE_DEPRECATED).toUTCString(),
    sunset: new Date(LEGACY_SIGNATURE_SUNSET).toUTCString(),
    link: `<${versioningUrl(publicUrl)}>; rel="deprecation"`
  }
}

/** Every signature header of one attempt at `now`: ours, the deprecated one until its sunset, Standard Webhooks'. */
export function signatureHeaders (
  secret: string,
  body: string,
  now: number,
  publicUrl: string,
  webhookId: string
): Record<string, string> {
  const t = Math.floor(now / 1000)
  const headers: Record<string, string> = {
    [SIGNATURE_HEADER]: `t=${t},v1=${hmacHex(secret, `${t}.${body}`)}`,
    ...standardWebhookHeaders(secret, webhookId, body, now)
  }
  if (now < LEGACY_SIGNATURE_SUNSET) {
    headers[LEGACY_SIGNATURE_HEADER] = hmacHex(secret, body)
    Object.assign(headers, deprecationHeaders(now, publicUrl))
  }
  return headers
}
