import type { Knex } from 'knex'
import type { Platform } from './platform-signatures.js'
import { isDuplicateKey } from '../../db.js'
import { prefix } from '../../lib/text.js'

export interface PlatformSecretRow {
  org_id: string
  store_env_id: string
  platform: Platform
  secret_sealed: string
  created_at: number
  updated_at: number
}

export interface ApiCredentialsRow {
  org_id: string
  store_env_id: string
  platform: Platform
  credentials_sealed: string
  created_at: number
  updated_at: number
}

export interface ReceiptRow {
  id?: number
  org_id: string
  store_env_id: string
  platform: Platform
  delivery_id: string
  topic: string
  outcome: 'processing' | 'applied' | 'ignored' | 'rejected'
  detail: string | null
  received_at: number
}

/**
 * Inbound platform webhooks: per-store secrets and API credentials (both sealed), and the receipts that de-duplicate
 * deliveries.
 */
export function platformSyncRepository (db: Knex) {
  return {
    async saveSecret (row: PlatformSecretRow, trx: Knex = db): Promise<void> {
      await trx('platform_webhook_secrets').insert(row).onConflict(['store_env_id', 'platform']).merge(['secret_sealed', 'updated_at'])
    },

    findSecret (storeId: string, platform: Platform, trx: Knex = db): Promise<PlatformSecretRow | undefined> {
      return trx<PlatformSecretRow>('platform_webhook_secrets').where({ store_env_id: storeId, platform }).first()
    },

    listSecrets (storeId: string): Promise<PlatformSecretRow[]> {
      return db<PlatformSecretRow>('platform_webhook_secrets').where({ store_env_id: storeId }).orderBy('platform')
    },

    async saveApiCredentials (row: ApiCredentialsRow, trx: Knex = db): Promise<void> {
      await trx('platform_api_credentials').insert(row).onConflict(['store_env_id', 'platform']).merge(['credentials_sealed', 'updated_at'])
    },

    findApiCredentials (storeId: string, platform: Platform, trx: Knex = db): Promise<ApiCredentialsRow | undefined> {
      return trx<ApiCredentialsRow>('platform_api_credentials').where({ store_env_id: storeId, platform }).first()
    },

    listApiCredentials (storeId: string): Promise<ApiCredentialsRow[]> {
      return db<ApiCredentialsRow>('platform_api_credentials').where({ store_env_id: storeId }).orderBy('platform')
    },

    /** True when there was something to remove. */
    async removeApiCredentials (storeId: string, platform: Platform, trx: Knex = db): Promise<boolean> {
      return await trx('platform_api_credentials').where({ store_env_id: storeId, platform }).delete() > 0
    },

    /**
     * Claims a delivery id for this store and platform: `duplicate` when it was already received (a retry or a
     * replay), `in_flight` while another request is still applying it. A claim left `processing` since before
     * `staleBefore` belongs to a process that died mid-way: it is taken over, so the platform's retry is applied.
     */
    async claimDelivery (row: ReceiptRow, staleBefore: number): Promise<'claimed' | 'duplicate' | 'in_flight'> {
      try {
        await db('platform_webhook_receipts').insert(row)
        return 'claimed'
      } catch (err) {
        if (!isDuplicateKey(err)) throw err
      }
      const key = { store_env_id: row.store_env_id, platform: row.platform, delivery_id: row.delivery_id }
      const taken = await db('platform_webhook_receipts').where({ ...key, outcome: 'processing' }).where('received_at', '<', staleBefore)
        .update({ received_at: row.received_at, topic: row.topic })
      if (taken > 0) return 'claimed'
      const current = await db<ReceiptRow>('platform_webhook_receipts').where(key).first('outcome')
      // Released meanwhile (the other attempt failed): the platform's next retry is claimed afresh.
      return current && current.outcome !== 'processing' ? 'duplicate' : 'in_flight'
    },

    async settle (
      storeId: string,
      platform: Platform,
      deliveryId: string,
      outcome: ReceiptRow['outcome'],
      detail: string | null
    ): Promise<void> {
      await db('platform_webhook_receipts').where({ store_env_id: storeId, platform, delivery_id: deliveryId })
        .update({ outcome, detail: detail == null ? null : prefix(detail, 500) })
    },

    /** Lets a delivery that could not be applied be received again (the platform retries it). */
    async release (storeId: string, platform: Platform, deliveryId: string): Promise<void> {
      await db('platform_webhook_receipts').where({ store_env_id: storeId, platform, delivery_id: deliveryId }).delete()
    }
  }
}
export type PlatformSyncRepository = ReturnType<typeof platformSyncRepository>
