import { generateKeyPair } from 'node:crypto'
import { promisify } from 'node:util'
import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { base62 } from '../../lib/ids.js'
import { decrypt, encrypt } from '../../lib/secrets.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { checkRecord, recordsFor, type DnsResolver, type Purpose, type RecordStatus } from './dns-records.js'
import type { SendingDomainRepository, SendingDomainRow } from './sending-domain.repository.js'

const generate = promisify(generateKeyPair)

interface Deps {
  db: Knex
  repo: SendingDomainRepository
  events: EventLog
  resolver: DnsResolver
  clock: Clock
  secretKey: string
  publicUrl: string
  mailFrom: string
}

/** What a verified domain gives the sender: nodemailer's `dkim` option and the From address on the domain. */
export interface Signer { fromAddress: string, dkim: { domainName: string, keySelector: string, privateKey: string } }

/** A hostname of at least two labels, lower-cased, no trailing dot. */
const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/

/** A store's own sending domain: a DKIM key per domain, the records to publish, a DNS check, then signed mail. */
export function sendingDomainService ({ db, repo, events, resolver, clock, secretKey, publicUrl, mailFrom }: Deps) {
  const serviceHost = new URL(publicUrl).hostname
  const localPart = (/<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom).split('@')[0].trim()

  function present (row: SendingDomainRow) {
    const checks = (row.checks ? JSON.parse(row.checks) : {}) as Partial<Record<Purpose, RecordStatus>>
    const records = recordsFor({ domain: row.domain, selector: row.selector, publicKey: row.dkim_public_key, serviceHost })
    return {
      domain: row.domain,
      status: row.verified_at != null ? 'verified' as const : 'pending' as const,
      fromAddress: `${localPart}@${row.domain}`,
      records: records.map((r) => ({ ...r, status: checks[r.purpose] ?? 'pending' as const })),
      verifiedAt: iso(row.verified_at),
      checkedAt: iso(row.checked_at),
      updatedAt: iso(row.updated_at)!
    }
  }

  async function found (storeId: string) {
    const row = await repo.find(storeId)
    if (!row) throw new errors.NotFound('Sending domain')
    return row
  }

  async function announce (trx: Knex.Transaction, store: StoreEnv, view: ReturnType<typeof present>) {
    await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'sending_domain.updated', data: view })
  }

  return {
    get: async (storeId: string) => present(await found(storeId)),

    /** The same domain again keeps its key and checks; a new one gets a new key pair and starts unverified. */
    async put (store: StoreEnv, input: { domain: string }) {
      const domain = input.domain.trim().toLowerCase().replace(/\.$/, '')
      if (!DOMAIN.test(domain)) throw new errors.InvalidRequest('domain: give a domain name such as mail.shop.example')
      const before = await repo.find(store.id)
      if (before?.domain === domain) return present(before)
      const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 })
      const now = clock()
      const row: SendingDomainRow = {
        org_id: store.orgId,
        store_env_id: store.id,
        domain,
        selector: `eh${base62(8).toLowerCase()}`,
        dkim_private_key: encrypt(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, secretKey),
        dkim_public_key: (publicKey.export({ type: 'spki', format: 'der' })).toString('base64'),
        checks: null,
        verified_at: null,
        checked_at: null,
        created_at: now,
        updated_at: now
      }
      const view = present(row)
      // The domain and its event commit together: a failed append leaves no change the log does not show.
      await db.transaction(async (trx) => {
        await repo.put(row, trx)
        await announce(trx, store, view)
      })
      return view
    },

    /** Looks each record up; the domain is verified (and mail signed) while its DKIM record matches the key. */
    async verify (store: StoreEnv) {
      const row = await found(store.id)
      const records = recordsFor({ domain: row.domain, selector: row.selector, publicKey: row.dkim_public_key, serviceHost })
      const statuses = await Promise.all(records.map((r) => checkRecord(resolver, r)))
      const checks = Object.fromEntries(records.map((r, i) => [r.purpose, statuses[i]]))
      const now = clock()
      const verifiedAt = checks.dkim === 'verified' ? (row.verified_at ?? now) : null
      const view = present({ ...row, checks: JSON.stringify(checks), verified_at: verifiedAt, checked_at: now, updated_at: now })
      await db.transaction(async (trx) => {
        await repo.recordCheck(store.id, JSON.stringify(checks), verifiedAt, now, trx)
        if (Boolean(row.verified_at) !== Boolean(verifiedAt)) await announce(trx, store, view)
      })
      return view
    },

    async signerFor (storeId: string, trx: Knex = db): Promise<Signer | null> {
      const row = await repo.find(storeId, trx)
      if (!row || row.verified_at == null) return null
      return {
        fromAddress: `${localPart}@${row.domain}`,
        dkim: { domainName: row.domain, keySelector: row.selector, privateKey: decrypt(row.dkim_private_key, secretKey) }
      }
    }
  }
}
export type SendingDomainService = ReturnType<typeof sendingDomainService>
