import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { decrypt, encrypt } from '../../lib/secrets.js'
import { actorOf, type Credential, type StoreEnv } from '../../types.js'
import type { AuditEntry } from '../audit/audit.repository.js'
import type { ProductsRepository } from '../products/products.repository.js'
import type { ProductsService } from '../products/products.service.js'
import type { OrdersService } from '../orders/orders.service.js'
import { actionOf, parsePayload, topicOf, type Action } from './platform-payloads.js'
import { verifyPlatformSignature, type Headers, type Platform } from './platform-signatures.js'
import type { ReceiptRow, WebhooksRepository } from './webhooks.repository.js'

interface Deps {
  repo: WebhooksRepository
  stores: { find: (id: string) => Promise<StoreEnv | null> }
  products: ProductsService
  productRows: ProductsRepository
  orders: OrdersService
  audit: { record: (entry: AuditEntry) => Promise<void> }
  clock: Clock
  secretKey: string
  publicUrl: string
}

type Outcome = Exclude<ReceiptRow['outcome'], 'processing'>

const REFUSED = 'The platform signature is missing or does not match this store\'s secret for the platform'

export function webhooksService ({ repo, stores, products, productRows, orders, audit, clock, secretKey, publicUrl }: Deps) {
  const receiverUrl = (storeId: string, platform: Platform) => `${publicUrl}/v1/webhooks/${platform}/${storeId}`

  /** Through the bulk endpoints' own services, so events, review requests and hooks follow as for an API upsert. */
  async function apply (store: StoreEnv, action: Action): Promise<{ outcome: Outcome, detail: string | null }> {
    switch (action.kind) {
      case 'ignore': return { outcome: 'ignored', detail: action.reason }
      case 'product.delete': return await products.remove(store, action.id) ? { outcome: 'applied', detail: null } : { outcome: 'ignored', detail: 'No such product' }
      case 'order.delete': return await orders.remove(store, action.id) ? { outcome: 'applied', detail: null } : { outcome: 'ignored', detail: 'No such order' }
      case 'product.upsert': {
        // The platform knows nothing of review-request exclusions: the operator's choice is kept, not cleared.
        const stored = await productRows.find(store.id, action.item.platformProductId)
        const item = { ...action.item, excludedFromReviewRequests: Boolean(stored?.excluded_from_review_requests), exclusionReason: stored?.exclusion_reason ?? null }
        return settled(await products.upsert(store, [item]))
      }
      case 'order.upsert': return settled(await orders.upsert(store, [action.item]))
    }
  }

  function settled (result: { failed: number, errors: Array<{ message: string }> }): { outcome: Outcome, detail: string | null } {
    return result.failed > 0 ? { outcome: 'rejected', detail: result.errors[0].message } : { outcome: 'applied', detail: null }
  }

  return {
    async setSecret (credential: Credential, store: StoreEnv, platform: Platform, secret: string, ip: string | null) {
      const now = clock()
      await repo.saveSecret({ org_id: store.orgId, store_env_id: store.id, platform, secret_sealed: encrypt(secret, secretKey), created_at: now, updated_at: now })
      await audit.record({ orgId: store.orgId, action: 'platform_webhook.secret_set', actor: actorOf(credential), subject: `store:${store.id}`, ip, details: { platform } })
      return { platform, receiverUrl: receiverUrl(store.id, platform), updatedAt: iso(now)! }
    },

    async listSecrets (store: StoreEnv) {
      const rows = await repo.listSecrets(store.id)
      return { data: rows.map((row) => ({ platform: row.platform, receiverUrl: receiverUrl(store.id, row.platform), updatedAt: iso(row.updated_at)! })) }
    },

    /**
     * A platform's notification: verified against the store's secret for that platform (401 otherwise, the same
     * answer for an unknown store, so the URL reveals nothing), claimed once by its delivery id, then applied.
     * A delivery that cannot be applied is released, so the platform's retry is received again.
     */
    async receive (platform: Platform, storeId: string, headers: Headers, raw: Buffer, shopDomain: string | null) {
      const store = await stores.find(storeId)
      const sealed = store ? await repo.findSecret(store.id, platform) : undefined
      const verified = store && sealed ? verifyPlatformSignature(platform, decrypt(sealed.secret_sealed, secretKey), headers, raw, clock()) : null
      if (!store || !verified) throw new errors.InvalidSignature(REFUSED)
      const body = parsePayload(raw)
      const topic = topicOf(platform, verified.topic, body)
      const deliveryId = verified.deliveryId.slice(0, 191)
      const claimed = await repo.claimDelivery({
        org_id: store.orgId, store_env_id: store.id, platform, delivery_id: deliveryId, topic, outcome: 'processing', detail: null, received_at: clock()
      })
      if (!claimed) return { received: true, duplicate: true, outcome: null }
      try {
        const action: Action = body === null ? { kind: 'ignore', reason: 'The body is not JSON' } : actionOf(platform, verified.topic, body, { shopDomain })
        const { outcome, detail } = await apply(store, action)
        await repo.settle(store.id, platform, deliveryId, outcome, detail)
        return { received: true, duplicate: false, outcome }
      } catch (err) {
        await repo.release(store.id, platform, deliveryId)
        throw err
      }
    }
  }
}
export type WebhooksService = ReturnType<typeof webhooksService>
