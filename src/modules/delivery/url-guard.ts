import { BlockList, isIP } from 'node:net'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { promisify } from 'node:util'

/*
 * Webhook URLs must not reach into the operator's network (SSRF): http(s) only, no credentials in the URL, and no
 * private, loopback, link-local or otherwise non-public address, checked after DNS resolution, at registration and
 * again on every connection (the delivery agent resolves through `guardedLookup`, so a rebinding name cannot slip
 * through). `allowPrivate` is the operator's WEBHOOK_ALLOW_PRIVATE.
 */

const PRIVATE_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]
]

/*
 * IPv6 ranges blocked whole. `::/96` (IPv4-compatible, deprecated) and `2002::/16` (6to4, RFC 7526) carry an IPv4
 * address a host or relay may route to, and have no legitimate use as a webhook target; nor do Teredo or the
 * local-use NAT64 prefix (RFC 8215, private by definition).
 */
const PRIVATE_IPV6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7],
  ['fe80::', 10], ['ff00::', 8]
]

/*
 * /96 prefixes whose last 32 bits are the IPv4 address actually reached: IPv4-mapped (`::ffff:a.b.c.d`, the socket
 * connects over IPv4), IPv4-translated (SIIT, `::ffff:0:a.b.c.d`) and the well-known NAT64 prefix (RFC 6052; DNS64
 * answers public hosts with it). Only the private space inside them is blocked.
 */
const EMBEDDING_PREFIXES = ['::ffff:', '::ffff:0:', '64:ff9b::']

/** `10.0.0.0` -> `a00:0`: the last two groups of an IPv6 address that embeds it. */
function ipv4Groups (ipv4: string): string {
  const [a, b, c, d] = ipv4.split('.').map(Number)
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
}

// Node's BlockList parses the address (no hand-written parser sees untrusted input); the embedded forms are
// listed as IPv6 subnets generated from the IPv4 list above.
const blocked = new BlockList()
for (const [net, prefix] of PRIVATE_IPV4) {
  blocked.addSubnet(net, prefix, 'ipv4')
  for (const head of EMBEDDING_PREFIXES) blocked.addSubnet(head + ipv4Groups(net), 96 + prefix, 'ipv6')
}
for (const [net, prefix] of PRIVATE_IPV6) blocked.addSubnet(net, prefix, 'ipv6')

export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError'
}

/** Where the refusal is a choice the operator can change, the message says how. */
const PRIVATE_HINT = '; an operator can allow private addresses (e.g. for local testing) with WEBHOOK_ALLOW_PRIVATE=true'

/** True for any address a webhook may not reach unless the operator allows private addresses. */
export function isPrivateAddress (address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

function hostOf (url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

/** Shape checks that need no DNS: scheme, credentials, a host. Returns the parsed URL. */
export function checkUrlShape (raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UnsafeUrlError('The URL is not a valid absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('The URL must use http or https')
  if (url.username || url.password) throw new UnsafeUrlError('The URL must not contain credentials')
  if (!url.hostname) throw new UnsafeUrlError('The URL has no host')
  return url
}

const lookupAll = promisify(dnsLookup)

/** Full check for registration: shape, then every address the host resolves to. */
export async function checkUrl (raw: string, allowPrivate: boolean): Promise<URL> {
  const url = checkUrlShape(raw)
  if (allowPrivate) return url
  const host = hostOf(url)
  let addresses: string[]
  if (isIP(host)) {
    addresses = [host]
  } else {
    try {
      addresses = (await lookupAll(host, { all: true }) as LookupAddress[]).map((a) => a.address)
    } catch {
      throw new UnsafeUrlError(`The host ${host} does not resolve`)
    }
  }
  if (addresses.some(isPrivateAddress)) {
    throw new UnsafeUrlError(`The URL resolves to a private, loopback or link-local address${PRIVATE_HINT}`)
  }
  return url
}

/** For delivery time: an IP literal in the URL never goes through DNS, so it is checked here. */
export function checkLiteralHost (url: URL, allowPrivate: boolean): void {
  const host = hostOf(url)
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw new UnsafeUrlError(`The URL points at a private address${PRIVATE_HINT}`)
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** A `lookup` for net/tls connect options that refuses private answers. */
export function guardedLookup (allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean, family?: number | string }, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true } as { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '')
      const unsafe = !allowPrivate && addresses.some((a) => isPrivateAddress(a.address))
      if (unsafe) {
        const error = new UnsafeUrlError(`${hostname} resolves to a private address`) as NodeJS.ErrnoException
        error.code = 'EUNSAFEADDRESS'
        return callback(error, '')
      }
      if (options.all) return callback(null, addresses)
      callback(null, addresses[0].address, addresses[0].family)
    })
  }
}
