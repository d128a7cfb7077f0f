import { createHmac, timingSafeEqual } from 'node:crypto'

/*
 * Verifying an evidence-hub webhook, for receivers: copy this file as it is (it needs only node:crypto).
 * See docs/webhooks.md. Checks the `x-service-signature-v2` header (`t=<unix seconds>,v1=<hex HMAC-SHA256>`,
 * keyed with the `whsec_…` secret string, over `<t>.<raw body>`), refuses timestamps more than `toleranceSeconds`
 * away from now, compares in constant time, and ignores header fields it does not know.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300

export interface VerifyOptions {
  /** Seconds a delivery stays valid either side of its timestamp (default 300). */
  toleranceSeconds?: number
  /** Current time in milliseconds (default Date.now()). */
  now?: number
}

export type VerifyResult =
  | { ok: true, timestamp: number }
  | { ok: false, reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' }

export function parseSignatureHeader (header: string): { timestamp: number | null, signatures: string[] } {
  let timestamp: number | null = null
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const at = part.indexOf('=')
    if (at <= 0) continue
    const key = part.slice(0, at).trim()
    const value = part.slice(at + 1).trim()
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value)
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase())
  }
  return { timestamp, signatures }
}

function sameHex (a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex')
  const bb = Buffer.from(b, 'hex')
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}

/** `rawBody` must be the exact bytes received, before any JSON parsing. */
export function verifySignature (
  rawBody: string | Buffer,
  header: string | string[] | undefined,
  secret: string,
  options: VerifyOptions = {}
): VerifyResult {
  if (header === undefined || header === '') return { ok: false, reason: 'missing_header' }
  const { timestamp, signatures } = parseSignatureHeader(Array.isArray(header) ? header.join(',') : header)
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed_header' }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000)
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')
  // Every candidate is compared, so the time taken does not say which one matched.
  let matched = false
  for (const signature of signatures) matched = sameHex(expected, signature) || matched
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' }
}
