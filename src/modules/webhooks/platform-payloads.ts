import { parseDateTime } from '../../lib/formats.js'
import type { Platform } from './platform-signatures.js'

/**
 * What a platform notification asks of the store's data, in the shape of the bulk endpoints' items
 * (decisions.md section 5), so it goes through the same services as `PUT /products` and `PUT /orders`.
 */
export type Action =
  | { kind: 'product.upsert', item: ProductItem }
  | { kind: 'product.delete', id: string }
  | { kind: 'order.upsert', item: OrderItem }
  | { kind: 'order.delete', id: string }
  | { kind: 'ignore', reason: string }

export interface ProductItem {
  platformProductId: string
  title: string | null
  url: string | null
  imageUrl: string | null
  platformUpdatedAt: string | null
  excludedFromReviewRequests?: boolean
  exclusionReason?: string | null
}

export interface OrderItem {
  platformOrderId: string
  customerEmail: string | null
  customerName: string | null
  total: number | null
  currency: string | null
  placedAt: string | null
  fulfilledAt: string | null
  lineItems: Array<{ platformProductId: string, quantity: number }>
  platformUpdatedAt: string | null
}

type Json = Record<string, unknown>

const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? value as Json : {})
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(obj) : [])
const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null)
const idOf = (value: unknown): string | null => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : text(value))

/** A platform date as ISO 8601 with a zone: WooCommerce's `*_gmt` fields carry none (they are UTC). */
function date (value: unknown, utcWithoutZone = false): string | null {
  const raw = text(value)
  if (!raw) return null
  const candidate = utcWithoutZone && !/(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? `${raw}Z` : raw
  const at = parseDateTime(candidate)
  return at === null ? null : new Date(at).toISOString()
}

function money (value: unknown): number | null {
  const amount = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,12}(\.\d+)?$/.test(value) ? Number(value) : NaN
  return Number.isFinite(amount) ? amount : null
}

function currency (value: unknown): string | null {
  const code = text(value)?.toUpperCase() ?? null
  return code && /^[A-Z]{3}$/.test(code) ? code : null
}

/** Line items with a product (a custom line has none), quantities summed per product. */
function lineItems (lines: Json[]): OrderItem['lineItems'] {
  const quantities = new Map<string, number>()
  for (const line of lines) {
    const product = idOf(line.product_id)
    const quantity = typeof line.quantity === 'number' && Number.isSafeInteger(line.quantity) && line.quantity > 0 ? line.quantity : 0
    if (product && product !== '0' && quantity > 0) quantities.set(product, (quantities.get(product) ?? 0) + quantity)
  }
  return [...quantities].map(([platformProductId, quantity]) => ({ platformProductId, quantity }))
}

const fullName = (first: unknown, last: unknown) => [text(first), text(last)].filter(Boolean).join(' ') || null

function latest (dates: Array<string | null>): string | null {
  const known = dates.filter((d): d is string => d !== null).sort()
  return known[known.length - 1] ?? null
}

/** Shopify REST payloads (shopify.dev, webhook topics `products/*` and `orders/*`). */
function shopify (topic: string, body: Json, shopDomain: string | null): Action {
  const id = idOf(body.id)
  if (!id) return { kind: 'ignore', reason: 'The payload has no id' }
  switch (topic) {
    case 'products/create':
    case 'products/update': {
      const handle = text(body.handle)
      return {
        kind: 'product.upsert',
        item: {
          platformProductId: id,
          title: text(body.title),
          url: shopDomain && handle && /^[a-z0-9.-]+$/i.test(shopDomain) ? `https://${shopDomain}/products/${encodeURIComponent(handle)}` : null,
          imageUrl: text(obj(body.image).src) ?? text(list(body.images)[0]?.src),
          platformUpdatedAt: date(body.updated_at)
        }
      }
    }
    case 'products/delete': return { kind: 'product.delete', id }
    case 'orders/create':
    case 'orders/updated':
    case 'orders/paid':
    case 'orders/fulfilled':
    case 'orders/partially_fulfilled': {
      const customer = obj(body.customer)
      const fulfilled = body.fulfillment_status === 'fulfilled'
      return {
        kind: 'order.upsert',
        item: {
          platformOrderId: id,
          customerEmail: text(body.email) ?? text(body.contact_email) ?? text(customer.email),
          customerName: fullName(customer.first_name, customer.last_name) ?? text(obj(body.billing_address).name),
          total: money(body.total_price),
          currency: currency(body.currency),
          placedAt: date(body.created_at),
          fulfilledAt: fulfilled ? latest(list(body.fulfillments).map((f) => date(f.created_at))) ?? date(body.updated_at) : null,
          lineItems: lineItems(list(body.line_items)),
          platformUpdatedAt: date(body.updated_at)
        }
      }
    }
    case 'orders/delete': return { kind: 'order.delete', id }
    default: return { kind: 'ignore', reason: `Topic ${topic} is not synced` }
  }
}

/** WooCommerce REST payloads (woocommerce.github.io/woocommerce-rest-api-docs, "Products", "Orders", "Webhooks"). */
function woocommerce (topic: string, body: Json): Action {
  const id = idOf(body.id)
  if (!id) return { kind: 'ignore', reason: 'The payload has no id' }
  switch (topic) {
    case 'product.created':
    case 'product.updated':
    case 'product.restored':
      return {
        kind: 'product.upsert',
        item: {
          platformProductId: id,
          title: text(body.name),
          url: text(body.permalink),
          imageUrl: text(list(body.images)[0]?.src),
          platformUpdatedAt: date(body.date_modified_gmt, true)
        }
      }
    case 'product.deleted': return { kind: 'product.delete', id }
    case 'order.created':
    case 'order.updated':
    case 'order.restored': {
      const billing = obj(body.billing)
      return {
        kind: 'order.upsert',
        item: {
          platformOrderId: id,
          customerEmail: text(billing.email),
          customerName: fullName(billing.first_name, billing.last_name),
          total: money(body.total),
          currency: currency(body.currency),
          placedAt: date(body.date_created_gmt, true),
          // "completed" is WooCommerce's fulfilled state; date_completed_gmt is set when the order reaches it.
          fulfilledAt: body.status === 'completed' ? date(body.date_completed_gmt, true) ?? date(body.date_modified_gmt, true) : null,
          lineItems: lineItems(list(body.line_items)),
          platformUpdatedAt: date(body.date_modified_gmt, true)
        }
      }
    }
    case 'order.deleted': return { kind: 'order.delete', id }
    default: return { kind: 'ignore', reason: `Topic ${topic} is not synced` }
  }
}

/**
 * BigCommerce sends a light payload: `{ scope, store_id, data: { type, id }, hash, created_at, producer }`, no
 * resource fields (developer.bigcommerce.com, "HTTPS webhooks overview" › "Callback payload"). A deletion is applied
 * from the id alone; a creation or change needs the store's API to read, which this service does not hold, so it
 * is acknowledged and left to the nightly sync (docs/sync.md).
 */
function bigcommerce (body: Json): Action {
  const scope = text(body.scope) ?? ''
  const id = idOf(obj(body.data).id)
  if (!id) return { kind: 'ignore', reason: 'The payload has no data.id' }
  if (scope === 'store/product/deleted') return { kind: 'product.delete', id }
  if (/^store\/(product|order)\//.test(scope)) return { kind: 'ignore', reason: `${scope} carries only an id: sync it with PUT /products or PUT /orders (docs/sync.md)` }
  return { kind: 'ignore', reason: `Topic ${scope || 'none'} is not synced` }
}

export function actionOf (platform: Platform, topic: string | null, body: unknown, context: { shopDomain: string | null }): Action {
  const payload = obj(body)
  if (platform === 'bigcommerce') return bigcommerce(payload)
  if (!topic) return { kind: 'ignore', reason: 'No topic header' }
  return platform === 'shopify' ? shopify(topic, payload, context.shopDomain) : woocommerce(topic, payload)
}

/** The topic to record: the header's, or BigCommerce's `scope`. */
export function topicOf (platform: Platform, topic: string | null, body: unknown): string {
  const named = platform === 'bigcommerce' ? text(obj(body).scope) : topic
  return (named ?? 'unknown').slice(0, 100)
}

/**
 * The body as JSON, or null. Shopify ids run past 2^53 (its sample product is 788032119674292922), which a plain
 * JSON.parse rounds: the id fields are read as the digits sent.
 */
export function parsePayload (raw: Buffer): unknown {
  const exactIds = raw.toString('utf8').replace(/("(?:id|product_id|order_id)"\s*:\s*)(\d{16,})(?=\s*[,}])/g, '$1"$2"')
  try { return JSON.parse(exactIds) } catch { return null }
}
