import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { decrypt, encrypt } from '../../lib/secrets.js'
import { actorOf, type Credential, type Log, type StoreEnv } from '../../types.js'
import type { AuditEntry } from '../audit/index.js'
import type { ProductsRepository, ProductsService } from '../products/index.js'
import type { OrdersService } from '../orders/index.js'
import { BigCommerceUnavailable, type BigCommerceApi, type BigCommerceCredentials } from './bigcommerce-api.js'
import { bigcommerceReader, checkBigCommerceCredentials, type BigCommerceCredentialsInput } from './bigcommerce-sync.js'
import { actionOf, parsePayload, topicOf, type Action } from './platform-payloads.js'
import { verifyPlatformSignature, type Headers, type Platform } from './platform-signatures.js'
import type { ReceiptRow, PlatformSyncRepository } from './platform-sync.repository.js'
import type { EventLog } from '../events/index.js'
import { prefix } from '../../lib/text.js'

interface Deps {
  db: Knex
  repo: PlatformSyncRepository
  events: EventLog
  stores: { find: (id: string) => Promise<StoreEnv | null> }
  products: ProductsService
  productRows: ProductsRepository
  orders: OrdersService
  audit: { record: (entry: AuditEntry, trx?: Knex) => Promise<void> }
  clock: Clock
  secretKey: string
  publicUrl: string
  bigcommerce: BigCommerceApi
  log: Log
}

type Outcome = Exclude<ReceiptRow['outcome'], 'processing'>

/** Far past the longest a delivery takes to apply (a platform API read gives up after seconds). */
const STALE_CLAIM_MS = 2 * 60_000

const REFUSED = 'The platform signature is missing or does not match this store\'s secret for the platform'

export function platformSyncService (
  { db, repo, events, stores, products, productRows, orders, audit, clock, secretKey, publicUrl, bigcommerce, log }: Deps
) {
  const receiverUrl = (storeId: string, platform: Platform) => `${publicUrl}/v1/webhooks/${platform}/${storeId}`
  const bigcommerceCredentials = async (storeId: string): Promise<BigCommerceCredentials | null> => {
    const row = await repo.findApiCredentials(storeId, 'bigcommerce')
    return row ? JSON.parse(decrypt(row.credentials_sealed, secretKey)) as BigCommerceCredentials : null
  }
  const readBigCommerce = bigcommerceReader({ api: bigcommerce, credentialsOf: bigcommerceCredentials })

  /** Through the bulk endpoints' own services, so events, review requests and hooks follow as for an API upsert. */
  async function apply (store: StoreEnv, action: Action): Promise<{ outcome: Outcome, detail: string | null }> {
    switch (action.kind) {
      case 'ignore':
        return { outcome: 'ignored', detail: action.reason }
      case 'fetch':
        return apply(store, await readBigCommerce(store.id, action))
      case 'product.delete':
        return await products.remove(store, action.id)
          ? { outcome: 'applied', detail: null }
          : { outcome: 'ignored', detail: 'No such product' }
      case 'order.delete':
        return await orders.remove(store, action.id)
          ? { outcome: 'applied', detail: null }
          : { outcome: 'ignored', detail: 'No such order' }
      case 'product.upsert': {
        // The platform knows nothing of review-request exclusions: the operator's choice is kept, not cleared.
        const stored = await productRows.find(store.id, action.item.platformProductId)
        const item = {
          ...action.item,
          excludedFromReviewRequests: Boolean(stored?.excluded_from_review_requests),
          exclusionReason: stored?.exclusion_reason ?? null
        }
        return settled(await products.upsert(store, [item]))
      }
      case 'order.upsert':
        return settled(await orders.upsert(store, [action.item]))
    }
  }

  function settled (result: { failed: number, errors: Array<{ message: string }> }): { outcome: Outcome, detail: string | null } {
    return result.failed > 0 ? { outcome: 'rejected', detail: result.errors[0].message } : { outcome: 'applied', detail: null }
  }

  /** A platform's settings as listed: whether and when its secret and API credentials were set, never the values. */
  function presentPlatform (
    storeId: string,
    platform: Platform,
    secret: { updated_at: number } | undefined,
    api: { updated_at: number } | undefined
  ) {
    return {
      platform,
      receiverUrl: receiverUrl(storeId, platform),
      updatedAt: iso(Math.max(Number(secret?.updated_at ?? 0), Number(api?.updated_at ?? 0)))!,
      secretSet: Boolean(secret),
      apiCredentials: api ? { updatedAt: iso(Number(api.updated_at))! } : null
    }
  }

  /**
   * A change of a platform's settings, in one transaction: the write, its audit entry, and the event every change
   * appends (docs/contract/resources.md#common-rules), which carries the platform as listed.
   */
  async function changePlatform (store: StoreEnv, platform: Platform, write: (trx: Knex.Transaction) => Promise<AuditEntry>) {
    await db.transaction(async (trx) => {
      await audit.record(await write(trx), trx)
      const [secret, api] = await Promise.all([repo.findSecret(store.id, platform, trx), repo.findApiCredentials(store.id, platform, trx)])
      await events.append(trx, {
        orgId: store.orgId,
        storeEnvId: store.id,
        type: 'platform_webhook.updated',
        data: presentPlatform(store.id, platform, secret, api)
      })
    })
  }

  return {
    /** Where the platform's webhooks go (the admin page shows it before any secret is set). */
    receiverUrl,

    async setSecret (credential: Credential, store: StoreEnv, platform: Platform, secret: string, ip: string | null) {
      const now = clock()
      await changePlatform(store, platform, async (trx) => {
        await repo.saveSecret({
          org_id: store.orgId,
          store_env_id: store.id,
          platform,
          secret_sealed: encrypt(secret, secretKey),
          created_at: now,
          updated_at: now
        }, trx)
        return {
          orgId: store.orgId,
          action: 'platform_webhook.secret_set',
          actor: actorOf(credential),
          subject: `store:${store.id}`,
          ip,
          details: { platform }
        }
      })
      return { platform, receiverUrl: receiverUrl(store.id, platform), updatedAt: iso(now)! }
    },

    /** Each platform with a secret or API credentials: whether and when each was set, never the values. */
    async listSecrets (store: StoreEnv) {
      const [secrets, credentials] = await Promise.all([repo.listSecrets(store.id), repo.listApiCredentials(store.id)])
      const platforms = [...new Set([...secrets, ...credentials].map((row) => row.platform))].sort()
      return {
        data: platforms.map((platform) =>
          presentPlatform(
            store.id,
            platform,
            secrets.find((row) => row.platform === platform),
            credentials.find((row) => row.platform === platform)
          )
        )
      }
    },

    /** BigCommerce API credentials: checked, sealed, audited; the answer says when they were set, never what. */
    async setApiCredentials (credential: Credential, store: StoreEnv, input: BigCommerceCredentialsInput, ip: string | null) {
      const credentials = checkBigCommerceCredentials(input)
      const now = clock()
      await changePlatform(store, 'bigcommerce', async (trx) => {
        await repo.saveApiCredentials({
          org_id: store.orgId,
          store_env_id: store.id,
          platform: 'bigcommerce',
          credentials_sealed: encrypt(JSON.stringify(credentials), secretKey),
          created_at: now,
          updated_at: now
        }, trx)
        return {
          orgId: store.orgId,
          action: 'platform_webhook.api_credentials_set',
          actor: actorOf(credential),
          subject: `store:${store.id}`,
          ip,
          details: { platform: 'bigcommerce' }
        }
      })
      return {
        platform: 'bigcommerce' as const,
        receiverUrl: receiverUrl(store.id, 'bigcommerce'),
        apiCredentials: { updatedAt: iso(now)! }
      }
    },

    async removeApiCredentials (credential: Credential, store: StoreEnv, ip: string | null): Promise<void> {
      await changePlatform(store, 'bigcommerce', async (trx) => {
        if (!await repo.removeApiCredentials(store.id, 'bigcommerce', trx)) throw new errors.NotFound('BigCommerce API credentials')
        return {
          orgId: store.orgId,
          action: 'platform_webhook.api_credentials_removed',
          actor: actorOf(credential),
          subject: `store:${store.id}`,
          ip,
          details: { platform: 'bigcommerce' }
        }
      })
    },

    /**
     * A platform's notification: verified against the store's secret for that platform (401 otherwise, the same
     * answer for an unknown store, so the URL reveals nothing), claimed once by its delivery id, then applied.
     * A delivery that cannot be applied is released, so the platform's retry is received again; when the platform's
     * API cannot be read now, the answer is a 503 so that the platform does retry.
     */
    async receive (platform: Platform, storeId: string, headers: Headers, raw: Buffer, shopDomain: string | null) {
      const store = await stores.find(storeId)
      const sealed = store ? await repo.findSecret(store.id, platform) : undefined
      const verified = store && sealed
        ? verifyPlatformSignature(platform, decrypt(sealed.secret_sealed, secretKey), headers, raw, clock())
        : null
      if (!store || !verified) throw new errors.InvalidSignature(REFUSED)
      const body = parsePayload(raw)
      const topic = topicOf(platform, verified.topic, body)
      const deliveryId = prefix(verified.deliveryId, 191)
      const now = clock()
      const claim = await repo.claimDelivery({
        org_id: store.orgId,
        store_env_id: store.id,
        platform,
        delivery_id: deliveryId,
        topic,
        outcome: 'processing',
        detail: null,
        received_at: now
      }, now - STALE_CLAIM_MS)
      if (claim === 'duplicate') return { received: true, duplicate: true, outcome: null }
      // Acknowledging it now would lose it if the attempt under way fails: the platform is asked to come back.
      if (claim === 'in_flight') throw new errors.ServiceUnavailable('This delivery is being applied by an earlier attempt; retry it later')
      try {
        const action: Action = body === null
          ? { kind: 'ignore', reason: 'The body is not JSON' }
          : actionOf(platform, verified.topic, body, { shopDomain })
        const { outcome, detail } = await apply(store, action)
        await repo.settle(store.id, platform, deliveryId, outcome, detail)
        return { received: true, duplicate: false, outcome }
      } catch (err) {
        await repo.release(store.id, platform, deliveryId)
        if (!(err instanceof BigCommerceUnavailable)) throw err
        // A 5xx makes BigCommerce deliver again later; the released delivery id lets that retry be applied.
        log.warn(
          { storeEnvId: store.id, platform, deliveryId, topic, reason: err.message },
          'platform API unavailable; delivery left for the retry'
        )
        throw new errors.ServiceUnavailable(`${err.message}. Nothing was applied; a retry of this delivery will be.`)
      }
    }
  }
}
export type PlatformSyncService = ReturnType<typeof platformSyncService>
