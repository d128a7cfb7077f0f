import { errors } from '../../errors.js'
import { isWebUrl } from '../../lib/formats.js'
import type { BigCommerceApi, BigCommerceCredentials } from './bigcommerce-api.js'
import { orderFromBigCommerce, productFromBigCommerce } from './bigcommerce-records.js'
import type { Action, FetchAction } from './platform-payloads.js'

export interface BigCommerceCredentialsInput { storeHash: string, accessToken: string, storefrontUrl?: string }

/** The `{store_hash}` of `https://api.bigcommerce.com/stores/{store_hash}/v3/`, e.g. `id30h7ohwf`. */
const STORE_HASH = /^[a-z0-9]{3,32}$/
/** An API account's access token: printable ASCII without spaces (it travels in a header). */
const ACCESS_TOKEN = /^[\x21-\x7e]{20,200}$/

/** The credentials a store gives, checked with messages that say what to paste; the storefront URL without a trailing slash. */
export function checkBigCommerceCredentials (input: BigCommerceCredentialsInput): BigCommerceCredentials {
  if (!STORE_HASH.test(input.storeHash)) {
    throw new errors.InvalidRequest(
      'storeHash: give the store hash, 3 to 32 lowercase letters and digits: the part after /stores/ in the API path of the store\'s API account (https://api.bigcommerce.com/stores/{store_hash}/v3/)'
    )
  }
  if (!ACCESS_TOKEN.test(input.accessToken)) {
    throw new errors.InvalidRequest(
      'accessToken: give the API account\'s access token as BigCommerce shows it, 20 to 200 characters without spaces'
    )
  }
  return { storeHash: input.storeHash, accessToken: input.accessToken, storefrontUrl: storefront(input.storefrontUrl) }
}

function storefront (value: string | undefined): string | null {
  if (value === undefined) return null
  const url = isWebUrl(value) ? new URL(value) : null
  if (!url || url.username || url.password || url.search || url.hash) {
    throw new errors.InvalidRequest(
      'storefrontUrl: give the storefront\'s address, e.g. https://shop.example.com, without credentials, query or fragment'
    )
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

interface ReaderDeps {
  api: BigCommerceApi
  credentialsOf: (storeId: string) => Promise<BigCommerceCredentials | null>
}

/**
 * Turns a BigCommerce notification that names a record into what to apply: the record read from the store's API
 * as a bulk item, or an acknowledgement with the reason nothing was applied (no credentials, the record is gone,
 * an answer that is not the record asked for). BigCommerceUnavailable passes through: the delivery is retried.
 */
export function bigcommerceReader ({ api, credentialsOf }: ReaderDeps) {
  return async function read (storeId: string, action: FetchAction): Promise<Action> {
    const credentials = await credentialsOf(storeId)
    if (!credentials) {
      return {
        kind: 'ignore',
        reason:
          `BigCommerce sends only the ${action.resource}'s id and this store has no BigCommerce API credentials to read it: PUT /v1/webhooks/platforms/bigcommerce/credentials (docs/sync.md)`
      }
    }
    if (action.resource === 'product') {
      const data = await api.product(credentials, action.id)
      if (data === null) return { kind: 'ignore', reason: `BigCommerce answered 404 for product ${action.id}: it was deleted since` }
      const item = productFromBigCommerce(data, action.id, credentials.storefrontUrl)
      return item
        ? { kind: 'product.upsert', item }
        : { kind: 'ignore', reason: `BigCommerce's answer for product ${action.id} is not that product` }
    }
    const found = await api.order(credentials, action.id)
    if (found === null) return { kind: 'ignore', reason: `BigCommerce answered 404 for order ${action.id}: it was deleted since` }
    const item = orderFromBigCommerce(found, action.id)
    return item
      ? { kind: 'order.upsert', item }
      : { kind: 'ignore', reason: `BigCommerce's answer for order ${action.id} is not that order` }
  }
}
