import type { Knex } from 'knex'
import type { TemplateKey } from './templates.js'

export interface EmailSettingsRow {
  org_id: string
  store_env_id: string
  loyalty_reward_mails: boolean | number
  review_incentive_mails: boolean | number
  updated_at: number
}

export type RewardMailState = 'pending' | 'done' | 'skipped'

export interface RewardMailRow {
  id?: number
  org_id: string
  store_env_id: string
  /** What the mail is about, once: a loyalty ledger entry (`lle_…`) or a review incentive issue (`rii_…`). */
  source_id: string
  template_key: TemplateKey
  to: string
  /** The template's values (JSON): plain strings, or `{ couponCode }` for the coupon set apart in HTML. */
  values: string
  state: RewardMailState
  message_id: number | null
  reason: string | null
  created_at: number
  updated_at: number
}

/** The store's email settings and the reward-mail queue (migrations/20261127010000_reward_mails.ts). */
export function rewardMailsRepository (db: Knex) {
  return {
    settings (storeId: string, trx: Knex = db): Promise<EmailSettingsRow | undefined> {
      return trx<EmailSettingsRow>('email_settings').where({ store_env_id: storeId }).first()
    },

    async putSettings (trx: Knex, row: EmailSettingsRow) {
      await trx('email_settings').insert(row).onConflict('store_env_id').merge([
        'loyalty_reward_mails',
        'review_incentive_mails',
        'updated_at'
      ])
    },

    /** One row per (store, source): a second insert of the same reward is ignored by the unique key, not by a read. */
    async enqueue (trx: Knex, row: RewardMailRow) {
      await trx('reward_mails').insert(row).onConflict(['store_env_id', 'source_id']).ignore()
    },

    pending (limit: number, storeId?: string): Promise<Array<{ id: number }>> {
      const query = db('reward_mails').where({ state: 'pending' }).orderBy('id').limit(limit).select('id')
      if (storeId) query.where({ store_env_id: storeId })
      return query
    },

    /**
     * The pending row, locked for this transaction. On MySQL a row another worker holds is skipped, not waited on,
     * and the state is read again under the lock, so a row another worker just sent is not sent twice.
     */
    async claim (id: number, trx: Knex.Transaction): Promise<RewardMailRow | undefined> {
      const query = trx<RewardMailRow>('reward_mails').where({ id, state: 'pending' }).first()
      if (trx.client.config.client === 'mysql2') query.forUpdate().skipLocked()
      return query
    },

    async settle (
      trx: Knex,
      id: number,
      patch: { state: RewardMailState, message_id?: number | null, reason: string, updated_at: number }
    ) {
      await trx('reward_mails').where({ id }).update(patch)
    },

    /** Customer erasure: a mail still waiting is not sent, and no row keeps the address or what it said. */
    async eraseRecipient (trx: Knex, storeId: string, email: string, now: number) {
      await trx('reward_mails').where({ store_env_id: storeId, to: email, state: 'pending' })
        .update({ state: 'skipped', reason: 'Not sent: the customer was erased', updated_at: now })
      await trx('reward_mails').where({ store_env_id: storeId, to: email }).update({ to: '[erased]', values: '{}' })
    }
  }
}
export type RewardMailsRepository = ReturnType<typeof rewardMailsRepository>
