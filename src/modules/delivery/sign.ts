import { createHmac } from 'node:crypto'

/**
 * Delivery signatures, docs/contract/webhooks-and-delivery.md#signatures: `x-service-signature-v2: t=<unix>,v1=<hex>`
 * is HMAC-SHA256 keyed with the secret string as given, over `<t>.<raw body>`. Until the sunset the deprecated
 * body-only `x-service-signature` is sent too, with the RFC 8594 headers (docs/changelog.md#deprecations).
 */
export const SIGNATURE_HEADER = 'x-service-signature-v2'
export const LEGACY_SIGNATURE_HEADER = 'x-service-signature'
export const LEGACY_SIGNATURE_SUNSET = Date.parse('2027-01-15T00:00:00Z')
/** When the body-only header was marked deprecated (changelog: Oct 2026). */
export const LEGACY_SIGNATURE_DEPRECATED = Date.parse('2026-10-15T00:00:00Z')

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

export function signatureHeaders (secret: string, body: string, now: number, publicUrl: string): Record<string, string> {
  const t = Math.floor(now / 1000)
  const headers: Record<string, string> = { [SIGNATURE_HEADER]: `t=${t},v1=${hmacHex(secret, `${t}.${body}`)}` }
  if (now < LEGACY_SIGNATURE_SUNSET) {
    headers[LEGACY_SIGNATURE_HEADER] = hmacHex(secret, body)
    Object.assign(headers, deprecationHeaders(now, publicUrl))
  }
  return headers
}
