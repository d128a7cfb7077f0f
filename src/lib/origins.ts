/**
 * A store's allowed origins (docs/contract/storefront.md#origins): what the browser sends in `Origin`, so exactly
 * `scheme://host[:port]`. Stored normalised the way browsers serialise an origin (lower-case host, IDN hosts in
 * punycode, no default port), so the storefront's comparison is a plain string match.
 */

/** Enough for any store's sites; 50 origins of at most 300 characters fit the TEXT column (64 KB) many times over. */
export const MAX_ORIGINS = 50
/** A DNS name is at most 253 characters; scheme, port and a trailing slash fit in the rest. */
export const MAX_ORIGIN_LENGTH = 300

const MAX_HOST_LENGTH = 253
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/
/** Authority only: no user info, path, query or fragment (one trailing slash is tolerated and dropped). */
const BARE_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\\s]+\/?$/i

export class OriginError extends Error {}

function validHost (hostname: string): boolean {
  if (hostname.startsWith('[')) return true // an IPv6 literal, already checked by the URL parser
  if (hostname.length > MAX_HOST_LENGTH) return false
  return hostname.split('.').every((label) => LABEL.test(label))
}

/** One origin as the browser would send it, or an OriginError that says what is wrong with it. */
export function normalizeOrigin (input: string): string {
  const value = input.trim()
  if (value === '') throw new OriginError('An allowed origin cannot be empty')
  if (value.length > MAX_ORIGIN_LENGTH) throw new OriginError(`An allowed origin is at most ${MAX_ORIGIN_LENGTH} characters`)
  if (value.toLowerCase() === 'null') {
    throw new OriginError('"null" cannot be allowed: it is the origin of sandboxed frames and local files, so any such page would pass')
  }
  if (!BARE_ORIGIN.test(value)) {
    throw new OriginError(
      `${value} is not an origin: give scheme and host with an optional port (https://shop.example or http://localhost:3000), without path, query or fragment`
    )
  }
  let url: URL
  try { url = new URL(value) } catch { throw new OriginError(`${value} is not a valid URL`) }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OriginError(`${value} must start with https:// or http://`)
  if (!validHost(url.hostname)) throw new OriginError(`${value} does not have a valid host name (no wildcards; at most 253 characters)`)
  if (url.port === '0') throw new OriginError(`${value} has port 0, which no browser uses`)
  return url.origin
}

/** An origin as the storefront compares it: what the browser sends and what a store allows meet in this form. */
export function originKey (origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase()
}

/** A whole list: each origin normalised, duplicates (after normalising) removed, order kept. */
export function normalizeOrigins (input: readonly string[]): string[] {
  if (input.length > MAX_ORIGINS) throw new OriginError(`A store allows at most ${MAX_ORIGINS} origins (got ${input.length})`)
  const out = new Set<string>()
  input.forEach((origin, i) => {
    try {
      out.add(normalizeOrigin(origin))
    } catch (err) {
      throw new OriginError(input.length > 1 ? `Origin ${i + 1}: ${(err as Error).message}` : (err as Error).message)
    }
  })
  return [...out]
}

const WHERE_TO_ADD = 'Add it in the admin application (Stores → Allowed origins), with PUT /v1/account/stores/%ID%/origins, ' +
  'or with `npm run cli -- store set-origins --store %ID% --origin …`.'

/** The `origin_not_allowed` message: names the origin and says where a store owner adds it. */
export function originNotAllowedMessage (origin: string | undefined, storeId: string): string {
  const where = WHERE_TO_ADD.replaceAll('%ID%', storeId)
  if (!origin) {
    return `This storefront call sent no Origin header; storefront calls come from a browser page on an origin the store allows. ${where.replace('Add it', 'Allowed origins are managed')}`
  }
  const shown = origin.length > MAX_ORIGIN_LENGTH ? `${origin.slice(0, MAX_ORIGIN_LENGTH)}…` : origin
  return `Origin ${shown} is not allowed for this store. ${where}`
}
