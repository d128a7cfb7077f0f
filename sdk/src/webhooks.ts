import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Verifying a delivery of an outbound webhook or REST hook (docs/webhooks.md). Each delivery carries two signatures
 * of the same body, and either one verifies it:
 * - `x-service-signature-v2: t=<unix seconds>,v1=<hex>`, HMAC-SHA256 keyed with the `whsec_…` secret string as
 *   given, over `<t>.<raw body>`;
 * - the Standard Webhooks headers (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature: v1,<base64>`, HMAC-SHA256 keyed with the base64 after `whsec_`, decoded, over
 *   `<webhook-id>.<webhook-timestamp>.<raw body>`. `webhook-id` is the same on every retry of one delivery.
 * Until 2027-01-15 a deprecated body-only `x-service-signature` header is sent too; it is never accepted here.
 */
export const SIGNATURE_HEADER = 'x-service-signature-v2'
/** Deprecated (sunset 2027-01-15): HMAC over the body alone, no timestamp. Not accepted by `verifyWebhook`. */
export const LEGACY_SIGNATURE_HEADER = 'x-service-signature'
export const DEFAULT_TOLERANCE_SECONDS = 300
/** The Standard Webhooks headers. */
export const STANDARD_WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const

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

/** Which header set verified a delivery. */
export type WebhookScheme = 'x-service-signature-v2' | 'standard-webhooks'

export type VerifyWebhookResult =
  | { ok: true, timestamp: number, scheme: WebhookScheme }
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

type Failure = Extract<VerifyWebhookResult, { ok: false }>

function fresh (timestamp: number, options: VerifyWebhookOptions): boolean {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  return Math.abs(Math.floor((options.now ?? Date.now()) / 1000) - timestamp) <= tolerance
}

/** Whether any candidate equals `expected`; every one is compared, so the time taken does not say which matched. */
function anyEqual (expected: Buffer, candidates: Buffer[]): boolean {
  let matched = false
  for (const given of candidates) matched = (given.length === expected.length && timingSafeEqual(given, expected)) || matched
  return matched
}

function verifyServiceSignature (header: string, options: VerifyWebhookOptions): VerifyWebhookResult {
  const { timestamp, signatures } = parseSignatureHeader(header)
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed_header' }
  if (!fresh(timestamp, options)) return { ok: false, reason: 'timestamp_out_of_tolerance' }
  const expected = createHmac('sha256', options.secret).update(`${timestamp}.`).update(options.payload).digest()
  const matched = anyEqual(expected, signatures.map((signature) => Buffer.from(signature, 'hex')))
  return matched ? { ok: true, timestamp, scheme: SIGNATURE_HEADER } : { ok: false, reason: 'signature_mismatch' }
}

/** The spec's key: the secret after `whsec_`, base64-decoded (as the standardwebhooks libraries take it). */
function standardKey (secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
}

function verifyStandard (id: string | undefined, ts: string | undefined, header: string | undefined, options: VerifyWebhookOptions) {
  if (!id || !ts || !header) return { ok: false, reason: 'missing_header' } as const
  // Space-separated `v1,<base64>` entries; other versions are skipped, as the spec says.
  const signatures = header.split(' ')
    .filter((entry) => /^v1,[A-Za-z0-9+/]{43}=$/.test(entry))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'))
  if (!/^\d{1,12}$/.test(ts) || signatures.length === 0) return { ok: false, reason: 'malformed_header' } as const
  const timestamp = Number(ts)
  if (!fresh(timestamp, options)) return { ok: false, reason: 'timestamp_out_of_tolerance' } as const
  const expected = createHmac('sha256', standardKey(options.secret)).update(`${id}.${timestamp}.`).update(options.payload).digest()
  return anyEqual(expected, signatures)
    ? { ok: true, timestamp, scheme: 'standard-webhooks' } as const
    : { ok: false, reason: 'signature_mismatch' } as const
}

/**
 * Whether a delivery is authentic and fresh: `{ ok: true, timestamp, scheme }`, or `{ ok: false, reason }`. Answer
 * 400 (and do not process) when it is not. Either header set verifies it (`x-service-signature-v2`, or the Standard
 * Webhooks `webhook-*` headers): with both present, it is authentic when either one checks out, and otherwise the
 * reason is `x-service-signature-v2`'s. Comparison is in constant time.
 */
export function verifyWebhook (options: VerifyWebhookOptions): VerifyWebhookResult {
  const results: VerifyWebhookResult[] = []
  const header = headerOf(options.headers, SIGNATURE_HEADER)
  if (header !== undefined && header !== '') results.push(verifyServiceSignature(header, options))
  const standard = [STANDARD_WEBHOOK_HEADERS.id, STANDARD_WEBHOOK_HEADERS.timestamp, STANDARD_WEBHOOK_HEADERS.signature]
    .map((name) => headerOf(options.headers, name) || undefined)
  if (standard.some((value) => value !== undefined)) results.push(verifyStandard(standard[0], standard[1], standard[2], options))
  return results.find((result) => result.ok) ?? results[0] ?? ({ ok: false, reason: 'missing_header' } satisfies Failure)
}
