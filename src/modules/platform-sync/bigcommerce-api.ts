import { list, obj, type Json } from './payload-fields.js'

/** What a store gives us to read its BigCommerce catalog and orders (an API account's access token). */
export interface BigCommerceCredentials { storeHash: string, accessToken: string, storefrontUrl: string | null }

/**
 * BigCommerce could not be read now (refused credentials, a 5xx, a 429, a timeout, a broken answer): the platform
 * should deliver again later. The message names the status, never the request's headers (the token is in one).
 */
export class BigCommerceUnavailable extends Error {}

/** An order and its line items, as the V2 Orders API answers them. */
export interface BigCommerceOrder { order: Json, products: Json[] }

/** V2 lists page with `limit` (at most 250) and `page`; an order with more lines than this is read in pages. */
const PAGE = 250
const MAX_PAGES = 8

/**
 * The BigCommerce Management API, read-only, for the records a webhook names (developer.bigcommerce.com, "Catalog -
 * Products" › "Get a Product"; "Orders V2" › "Get an Order", "List Order Products"). Every call sends the store's
 * token as `X-Auth-Token` with `Accept: application/json`, gives up after `timeoutMs`, and never follows a redirect
 * (the token would go along to wherever it points). A 404 means the record is gone: the answer is null.
 */
export function bigcommerceApi ({ baseUrl, timeoutMs }: { baseUrl: string, timeoutMs: number }) {
  const root = baseUrl.replace(/\/+$/, '')

  async function get (credentials: BigCommerceCredentials, path: string, what: string): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${root}/stores/${encodeURIComponent(credentials.storeHash)}${path}`, {
        headers: { 'x-auth-token': credentials.accessToken, accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs)
      })
    } catch (err) {
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'the connection failed'
      throw new BigCommerceUnavailable(`BigCommerce's API could not be read for ${what}: ${reason}`)
    }
    if (res.status === 404) {
      await res.body?.cancel()
      return null
    }
    if (res.status === 204) return []
    if (res.status !== 200) {
      await res.body?.cancel()
      const hint = res.status === 401 || res.status === 403 ? ' (check the API account\'s token and its read scopes)' : ''
      throw new BigCommerceUnavailable(`BigCommerce's API answered ${res.status} for ${what}${hint}`)
    }
    try {
      return await res.json()
    } catch {
      throw new BigCommerceUnavailable(`BigCommerce's API answered ${what} with a body that is not JSON`)
    }
  }

  return {
    /** The V3 product in its `data` envelope, with its images; null when BigCommerce no longer has it. */
    async product (credentials: BigCommerceCredentials, id: string): Promise<Json | null> {
      const body = await get(credentials, `/v3/catalog/products/${id}?include=images`, `product ${id}`)
      return body === null ? null : obj(obj(body).data)
    },

    /** The V2 order and its products (line items); null when BigCommerce no longer has the order. */
    async order (credentials: BigCommerceCredentials, id: string): Promise<BigCommerceOrder | null> {
      const order = await get(credentials, `/v2/orders/${id}`, `order ${id}`)
      if (order === null) return null
      const products: Json[] = []
      for (let page = 1; page <= MAX_PAGES; page++) {
        const lines = await get(credentials, `/v2/orders/${id}/products?limit=${PAGE}&page=${page}`, `the products of order ${id}`)
        if (lines === null) return null
        products.push(...list(lines))
        if (!Array.isArray(lines) || lines.length < PAGE) break
      }
      return { order: obj(order), products }
    }
  }
}
export type BigCommerceApi = ReturnType<typeof bigcommerceApi>
