import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Verifying a delivery of an outbound webhook (docs/webhooks.md). Each delivery carries
 * `x-service-signature-v2: t=<unix seconds>,v1=<hex>`, where the hex is HMAC-SHA256 keyed with the webhook's
 * `whsec_…` secret string as given, over `<t>.<raw body>`. Until 2027-01-15 a deprecated body-only
 * `x-service-signature` header is sent too; this checks only the timestamped v2 header, which also stops replays.
 */
export const SIGNATURE_HEADER = 'x-service-signature-v2'
/** Deprecated (sunset 2027-01-15): HMAC over the body alone, no timestamp. Not accepted by `verifyWebhook`. */
export const LEGACY_SIGNATURE_HEADER = 'x-service-signature'
export const DEFAULT_TOLERANCE_SECONDS = 300

type HeaderValue = string | string[] | undefined

export interface VerifyWebhookOptions {
  /** The exact bytes received, before any JSON parsing. */
  payload: string | Uint8Array
  /** The request's headers: Node's `req.headers`, a fetch `Headers`, or a plain object (names in any case). */
  headers: Headers | Record<string, HeaderValue>
  /** The webhook's `whsec_…` secret, as shown when it was created. */
  secret: string
  /** Seconds a delivery stays valid either side of its timestamp (default 300). */
  toleranceSeconds?: number
  /** Current time in milliseconds (default `Date.now()`). */
  now?: number
}

export type VerifyWebhookResult =
  | { ok: true, timestamp: number }
  | { ok: false, reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' }

/** `t` and every `v1` of the header; fields it does not know are ignored (new schemes may be added). */
export function parseSignatureHeader (header: string): { timestamp: number | null, signatures: string[] } {
  const fields = header.split(',').map((field) => field.trim().match(/^(t|v1)=(.+)$/)).filter((m) => m !== null)
  const t = fields.filter(([, key, value]) => key === 't' && /^\d{1,12}$/.test(value)).at(-1)
  const signatures = fields
    .filter(([, key, value]) => key === 'v1' && /^[0-9a-f]{64}$/i.test(value))
    .map(([, , value]) => value.toLowerCase())
  return { timestamp: t ? Number(t[2]) : null, signatures }
}

function headerOf (headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  for (const [key, value] of Object.entries(headers as Record<string, HeaderValue>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(',') : value
  }
  return undefined
}

/**
 * Whether a delivery is authentic and fresh: `{ ok: true, timestamp }`, or `{ ok: false, reason }`. Answer 400
 * (and do not process) when it is not. Comparison is in constant time.
 */
export function verifyWebhook (options: VerifyWebhookOptions): VerifyWebhookResult {
  const header = headerOf(options.headers, SIGNATURE_HEADER)
  if (header === undefined || header === '') return { ok: false, reason: 'missing_header' }
  const { timestamp, signatures } = parseSignatureHeader(header)
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed_header' }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000)
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' }
  const expected = createHmac('sha256', options.secret).update(`${timestamp}.`).update(options.payload).digest()
  // Every candidate is compared, so the time taken does not say which one matched.
  let matched = false
  for (const signature of signatures) {
    const given = Buffer.from(signature, 'hex')
    matched = (given.length === expected.length && timingSafeEqual(given, expected)) || matched
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' }
}
