import { isWebUrl } from '../../lib/formats.js'
import type { BigCommerceOrder } from './bigcommerce-api.js'
import type { OrderItem, ProductItem } from './platform-payloads.js'
import { currency, date, fullName, idOf, lineItems, list, money, obj, rfc2822Date, text, type Json } from './payload-fields.js'

/**
 * BigCommerce order statuses that mean the goods have left (developer.bigcommerce.com, "Orders V2" › "Get Order
 * Statuses"): 2 Shipped, 10 Completed. 3 Partially Shipped is not fulfilled, as Shopify's `partially_fulfilled`.
 */
const FULFILLED_STATUSES = new Set([2, 10])

const MAX_URL = 2048

/**
 * A V3 catalog product (`GET /v3/catalog/products/{id}?include=images`, the `data` object) as a `PUT /products`
 * item. The product's page is the store's storefront URL plus its `custom_url.url` path, when the store gave one;
 * the image is the thumbnail (or else the first image) at its standard size.
 */
export function productFromBigCommerce (data: Json, expectedId: string, storefrontUrl: string | null): ProductItem | null {
  if (idOf(data.id) !== expectedId) return null
  const path = text(obj(data.custom_url).url)
  const url = storefrontUrl && path?.startsWith('/') ? `${storefrontUrl}${path}` : null
  const images = list(data.images)
  const image = images.find((i) => i.is_thumbnail === true) ?? images[0]
  const imageUrl = text(image?.url_standard) ?? text(image?.url_zoom)
  return {
    platformProductId: expectedId,
    title: text(data.name),
    url: url && url.length <= MAX_URL && isWebUrl(url) ? url : null,
    imageUrl: imageUrl && imageUrl.length <= MAX_URL && isWebUrl(imageUrl) ? imageUrl : null,
    platformUpdatedAt: date(data.date_modified)
  }
}

/**
 * A V2 order and its products as a `PUT /orders` item: the customer is the billing address (its `email` is the
 * customer's), the total is `total_inc_tax` in the transactional currency (`default_currency_code`), and a Shipped
 * or Completed order is fulfilled at `date_shipped` (or, without it, its last change). Bundled lines are parts of
 * another line's product (a pick list), not products the customer chose, so they are not reviewed on their own.
 */
export function orderFromBigCommerce ({ order, products }: BigCommerceOrder, expectedId: string): OrderItem | null {
  if (idOf(order.id) !== expectedId) return null
  const billing = obj(order.billing_address)
  const status = typeof order.status_id === 'number' ? order.status_id : Number(order.status_id)
  const updatedAt = rfc2822Date(order.date_modified)
  return {
    platformOrderId: expectedId,
    customerEmail: text(billing.email),
    customerName: fullName(billing.first_name, billing.last_name),
    total: money(order.total_inc_tax),
    currency: currency(order.default_currency_code) ?? currency(order.currency_code),
    placedAt: rfc2822Date(order.date_created),
    fulfilledAt: FULFILLED_STATUSES.has(status) ? rfc2822Date(order.date_shipped) ?? updatedAt : null,
    lineItems: lineItems(products.filter((line) => line.is_bundled_product !== true)),
    platformUpdatedAt: updatedAt
  }
}
