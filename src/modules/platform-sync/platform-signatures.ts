import { createHmac } from 'node:crypto'
import { safeEqual } from '../../lib/secrets.js'

/**
 * Each platform's own webhook signature, checked over the raw body exactly as its documentation describes
 * (docs/contract/resources.md#platform-sync). Comparisons are constant-time (lib/secrets.ts `safeEqual`).
 */
export const PLATFORMS = ['shopify', 'woocommerce', 'bigcommerce'] as const
export type Platform = typeof PLATFORMS[number]

export type Headers = Record<string, string | string[] | undefined>

/** What a verified request says about itself: the platform's delivery id (for de-duplication) and its topic. */
export interface VerifiedDelivery { deliveryId: string, topic: string | null }

/** The Standard Webhooks tolerance between the sender's timestamp and our clock (replayed requests fall outside). */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000

function header (headers: Headers, name: string): string | null {
  const value = headers[name]
  const text = Array.isArray(value) ? value[0] : value
  return typeof text === 'string' && text.length > 0 && text.length <= 1000 ? text.trim() : null
}

function base64Hmac (key: string | Buffer, content: Buffer): string {
  return createHmac('sha256', key).update(content).digest('base64')
}

/**
 * Shopify (shopify.dev, "Deliver webhooks through HTTPS" › "Verify webhooks"): `X-Shopify-Hmac-Sha256` is the
 * base64 HMAC-SHA256 of the raw body keyed with the app's client secret; `X-Shopify-Webhook-Id` names the delivery
 * (the same on retries, so it de-duplicates) and `X-Shopify-Topic` the topic, e.g. `products/update`.
 */
function shopify (secret: string, headers: Headers, raw: Buffer): VerifiedDelivery | null {
  const signature = header(headers, 'x-shopify-hmac-sha256')
  const deliveryId = header(headers, 'x-shopify-webhook-id')
  if (!signature || !deliveryId || !safeEqual(signature, base64Hmac(secret, raw))) return null
  return { deliveryId, topic: header(headers, 'x-shopify-topic') }
}

/**
 * WooCommerce (woocommerce.github.io/woocommerce-rest-api-docs, "Webhooks" › "Delivery/payload"):
 * `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the payload keyed with the webhook's secret;
 * `X-WC-Webhook-Delivery-ID` and `X-WC-Webhook-Topic` (e.g. `product.updated`) name the delivery and the topic.
 */
function woocommerce (secret: string, headers: Headers, raw: Buffer): VerifiedDelivery | null {
  const signature = header(headers, 'x-wc-webhook-signature')
  const deliveryId = header(headers, 'x-wc-webhook-delivery-id')
  if (!signature || !deliveryId || !safeEqual(signature, base64Hmac(secret, raw))) return null
  return { deliveryId, topic: header(headers, 'x-wc-webhook-topic') }
}

/**
 * BigCommerce signs HTTPS webhooks in the Standard Webhooks scheme (developer.bigcommerce.com, "Webhooks" ›
 * "HTTPS webhooks overview"; standardwebhooks.com, spec "Verifying webhook authenticity"): `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of `v1,<base64>` where the
 * digest is HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`. The key is the secret's bytes: for a
 * `whsec_` secret the base64 after the prefix, decoded, as the spec says; otherwise the secret string itself. The
 * topic is the body's `scope` (the payload carries only the resource's id, see platform-payloads.ts).
 */
function bigcommerce (secret: string, headers: Headers, raw: Buffer, now: number): VerifiedDelivery | null {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return null
  if (Math.abs(now - Number(timestamp) * 1000) > TIMESTAMP_TOLERANCE_MS) return null
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : secret
  const expected = base64Hmac(key, Buffer.concat([Buffer.from(`${id}.${timestamp}.`), raw]))
  const matches = signatures.split(' ').filter((entry) => entry.startsWith('v1,')).map((entry) => safeEqual(entry.slice(3), expected))
  return matches.includes(true) ? { deliveryId: id, topic: null } : null
}

export function verifyPlatformSignature (
  platform: Platform,
  secret: string,
  headers: Headers,
  raw: Buffer,
  now: number
): VerifiedDelivery | null {
  switch (platform) {
    case 'shopify':
      return shopify(secret, headers, raw)
    case 'woocommerce':
      return woocommerce(secret, headers, raw)
    case 'bigcommerce':
      return bigcommerce(secret, headers, raw, now)
  }
}
