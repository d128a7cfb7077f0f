/**
 * The DNS records a store publishes for its sending domain, and how each is checked. DKIM signs the mail; SPF lets
 * the service's servers send for the domain; DMARC tells receivers what to do with mail failing both; the
 * return-path CNAME lets bounces come back to the service (docs/contract/resources.md#sending-domain).
 */
export const RECORD_STATUSES = ['pending', 'verified', 'missing', 'mismatch', 'unreachable'] as const
export type RecordStatus = typeof RECORD_STATUSES[number]
export type Purpose = 'dkim' | 'spf' | 'dmarc' | 'return_path'

export interface DnsRecord { purpose: Purpose, type: 'TXT' | 'CNAME', name: string, value: string }

/** What the service needs of DNS: node's `dns.promises.Resolver` fits; tests point one at a local server. */
export interface DnsResolver {
  resolveTxt: (name: string) => Promise<string[][]>
  resolveCname: (name: string) => Promise<string[]>
}

export function recordsFor (input: { domain: string, selector: string, publicKey: string, serviceHost: string }): DnsRecord[] {
  const { domain, selector, publicKey, serviceHost } = input
  return [
    { purpose: 'dkim', type: 'TXT', name: `${selector}._domainkey.${domain}`, value: `v=DKIM1; k=rsa; p=${publicKey}` },
    { purpose: 'spf', type: 'TXT', name: domain, value: `v=spf1 include:_spf.${serviceHost} ~all` },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain}`, value: 'v=DMARC1; p=none; adkim=r; aspf=r' },
    { purpose: 'return_path', type: 'CNAME', name: `bounces.${domain}`, value: `bounces.${serviceHost}` }
  ]
}

const NOT_THERE = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA'])

async function lookUp<T> (query: () => Promise<T>, none: T): Promise<T | 'unreachable'> {
  try {
    return await query()
  } catch (err) {
    return NOT_THERE.has((err as { code?: string }).code ?? '') ? none : 'unreachable'
  }
}

const tag = (record: string, name: string) => new RegExp(`(?:^|;)\\s*${name}=([^;]*)`).exec(record)?.[1]?.replace(/\s+/g, '')

/** One record's status now. TXT strings of a record are joined (a 2048-bit DKIM key spans two 255-byte strings). */
export async function checkRecord (resolver: DnsResolver, record: DnsRecord): Promise<RecordStatus> {
  if (record.type === 'CNAME') {
    const found = await lookUp(() => resolver.resolveCname(record.name), [])
    if (found === 'unreachable') return found
    if (found.length === 0) return 'missing'
    return found.some((c) => c.toLowerCase().replace(/\.$/, '') === record.value) ? 'verified' : 'mismatch'
  }
  const found = await lookUp(() => resolver.resolveTxt(record.name), [])
  if (found === 'unreachable') return found
  const texts = found.map((chunks) => chunks.join(''))
  switch (record.purpose) {
    case 'dkim': {
      const keys = texts.map((t) => tag(t, 'p')).filter((p): p is string => p !== undefined)
      if (keys.length === 0) return 'missing'
      return keys.includes(tag(record.value, 'p') ?? '') ? 'verified' : 'mismatch'
    }
    case 'spf': {
      const spf = texts.filter((t) => /^v=spf1(\s|$)/i.test(t))
      if (spf.length === 0) return 'missing'
      const include = record.value.split(' ')[1]
      // Two SPF records are a permanent error for receivers (RFC 7208 section 4.5), whatever they say.
      return spf.length === 1 && spf[0].split(/\s+/).includes(include) ? 'verified' : 'mismatch'
    }
    default:
      return texts.some((t) => /^v=DMARC1(\s*;|$)/i.test(t)) ? 'verified' : 'missing'
  }
}
