import { currency, date, fullName, idOf, latest, lineItems, list, money, obj, text, type Json, type LineItem } from './payload-fields.js'
import type { Platform } from './platform-signatures.js'
import { prefix } from '../../lib/text.js'

/**
 * What a platform notification asks of the store's data, in the shape of the bulk endpoints' items
 * (docs/contract/api-conventions.md#bulk-upserts), so it goes through the same services as `PUT /products` and
 * `PUT /orders`.
 */
export type Action =
  | { kind: 'product.upsert', item: ProductItem }
  | { kind: 'product.delete', id: string }
  | { kind: 'order.upsert', item: OrderItem }
  | { kind: 'order.delete', id: string }
  | FetchAction
  | { kind: 'ignore', reason: string }

/** A notification that names a record without its fields (BigCommerce): the record is read from the platform's API. */
export interface FetchAction { kind: 'fetch', resource: 'product' | 'order', id: string }

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
  lineItems: LineItem[]
  platformUpdatedAt: string | null
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
          url: shopDomain && handle && /^[a-z0-9.-]+$/i.test(shopDomain)
            ? `https://${shopDomain}/products/${encodeURIComponent(handle)}`
            : null,
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
 * resource fields (developer.bigcommerce.com, "Webhook events": Products, Orders). A deletion is applied from the id
 * alone; a creation or change is read from the store's API (bigcommerce-api.ts). An archived order is BigCommerce's
 * deleted one (`DELETE /v2/orders/{id}` archives it), so it leaves the store's data as a Shopify `orders/delete` does.
 */
const BIGCOMMERCE_SCOPES: Record<string, (id: string) => Action> = {
  'store/product/created': (id) => ({ kind: 'fetch', resource: 'product', id }),
  'store/product/updated': (id) => ({ kind: 'fetch', resource: 'product', id }),
  'store/product/deleted': (id) => ({ kind: 'product.delete', id }),
  'store/order/created': (id) => ({ kind: 'fetch', resource: 'order', id }),
  'store/order/updated': (id) => ({ kind: 'fetch', resource: 'order', id }),
  'store/order/statusUpdated': (id) => ({ kind: 'fetch', resource: 'order', id }),
  'store/order/archived': (id) => ({ kind: 'order.delete', id })
}

function bigcommerce (body: Json): Action {
  const scope = text(body.scope) ?? ''
  const id = idOf(obj(body.data).id)
  const action = Object.hasOwn(BIGCOMMERCE_SCOPES, scope) ? BIGCOMMERCE_SCOPES[scope] : undefined
  if (!action) return { kind: 'ignore', reason: `Topic ${scope || 'none'} is not synced` }
  if (!id || !/^\d{1,19}$/.test(id)) return { kind: 'ignore', reason: 'The payload has no numeric data.id' }
  return action(id)
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
  return prefix(named ?? 'unknown', 100)
}

/**
 * The body as JSON, or null. Shopify ids run past 2^53 (its sample product is 788032119674292922), which a plain
 * JSON.parse rounds: the id fields are read as the digits sent.
 */
export function parsePayload (raw: Buffer): unknown {
  const exactIds = raw.toString('utf8').replace(/("(?:id|product_id|order_id)"\s*:\s*)(\d{16,})(?=\s*[,}])/g, '$1"$2"')
  try { return JSON.parse(exactIds) } catch { return null }
}
