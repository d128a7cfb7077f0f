import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import { equalsIgnoringCase } from '../../db.js'
import { countAndPage } from '../../lib/pagination.js'

export interface SettingsRow {
  store_env_id: string
  org_id: string
  points_per_unit: number
  birthday_points: number
  referrer_points: number
  referee_points: number
  tiers: string
  updated_at: number
}

export interface AccountRow {
  id: string
  org_id: string
  store_env_id: string
  customer_id: string
  balance: number
  lifetime_points: number
  created_at: number
  updated_at: number
}

export type EntryKind = 'api' | 'order' | 'birthday' | 'referral' | 'review'

export interface EntryRow {
  id?: number
  org_id: string
  store_env_id: string
  account_id: string
  customer_id: string
  kind: EntryKind
  idempotency_key: string
  points: number
  balance_after: number
  reason: string
  created_at: number
}

export interface ReferralRow {
  id: string
  org_id: string
  store_env_id: string
  referrer_customer_id: string
  referee_email: string | null
  referee_email_key: string | null
  referee_customer_id: string | null
  order_id: string | null
  status: 'pending' | 'completed'
  created_at: number
  completed_at: number | null
  updated_at: number
}

export function loyaltyRepository (db: Knex) {
  return {
    settings (storeId: string, trx: Knex = db): Promise<SettingsRow | undefined> {
      return trx<SettingsRow>('loyalty_settings').where({ store_env_id: storeId }).first()
    },

    async saveSettings (row: SettingsRow, trx: Knex) {
      await trx('loyalty_settings').insert(row).onConflict('store_env_id').merge()
    },

    account (storeId: string, customerId: string, trx: Knex = db, lock = false): Promise<AccountRow | undefined> {
      return lockForWrite(trx<AccountRow>('loyalty_accounts').where({ store_env_id: storeId, customer_id: customerId }), lock).first()
    },

    async insertAccount (row: AccountRow, trx: Knex) {
      await trx('loyalty_accounts').insert(row)
    },

    async setBalance (id: string, balance: number, lifetime: number, now: number, trx: Knex) {
      await trx('loyalty_accounts').where({ id }).update({ balance, lifetime_points: lifetime, updated_at: now })
    },

    /** A locking read, so it sees an entry another transaction committed after this one began (MySQL). */
    entry (storeId: string, customerId: string, kind: EntryKind, key: string, trx: Knex): Promise<EntryRow | undefined> {
      return lockForWrite(
        trx<EntryRow>('loyalty_ledger').where({ store_env_id: storeId, customer_id: customerId, kind, idempotency_key: key }),
        true
      ).first()
    },

    async insertEntry (row: EntryRow, trx: Knex): Promise<number> {
      const [id] = await trx('loyalty_ledger').insert(row)
      return Number(id)
    },

    listAccounts (storeId: string, updatedSince: number | null, page: { offset: number, limit: number }) {
      const base = db<AccountRow>('loyalty_accounts').where({ store_env_id: storeId })
      if (updatedSince !== null) base.where('updated_at', '>=', updatedSince)
      return countAndPage<AccountRow>(base, page, (q) => q.orderBy('updated_at').orderBy('id'))
    },

    ledger (accountId: string, page: { offset: number, limit: number }) {
      return countAndPage<EntryRow>(db('loyalty_ledger').where({ account_id: accountId }), page, (q) => q.orderBy('id', 'desc'))
    },

    async insertReferral (row: ReferralRow, trx: Knex) {
      await trx('loyalty_referrals').insert(row)
    },

    /** Newest first; with `updatedSince`, oldest change first, so a client that syncs from its last `updatedAt` misses nothing. */
    listReferrals (storeId: string, filter: { status?: string, updatedSince: number | null }, page: { offset: number, limit: number }) {
      const base = db('loyalty_referrals').where({ store_env_id: storeId })
      if (filter.status) base.where({ status: filter.status })
      if (filter.updatedSince === null) {
        return countAndPage<ReferralRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
      }
      base.where('updated_at', '>=', filter.updatedSince)
      return countAndPage<ReferralRow>(base, page, (q) => q.orderBy('updated_at').orderBy('id'))
    },

    async pendingReferrals (storeId: string, keys: string[], trx: Knex): Promise<ReferralRow[]> {
      if (keys.length === 0) return []
      return await lockForWrite(
        rowsByKeys(trx, 'loyalty_referrals', storeId, 'referee_email_key', keys).where({ status: 'pending' }).orderBy('id'),
        true
      ) as ReferralRow[]
    },

    async completeReferral (id: string, patch: Pick<ReferralRow, 'referee_customer_id' | 'order_id' | 'completed_at'>, trx: Knex) {
      await trx('loyalty_referrals').where({ id, status: 'pending' }).update({
        ...patch,
        status: 'completed',
        updated_at: patch.completed_at
      })
    },

    /** Erasure: a pending referral of the address is withdrawn, a completed one keeps no address; answers both. */
    async forgetReferee (storeId: string, key: string, now: number, trx: Knex): Promise<{ withdrawn: ReferralRow[], kept: ReferralRow[] }> {
      const rows = await trx<ReferralRow>('loyalty_referrals').where({ store_env_id: storeId, referee_email_key: key })
      const withdrawn = rows.filter((row) => row.status === 'pending')
      if (withdrawn.length) await trx('loyalty_referrals').whereIn('id', withdrawn.map((row) => row.id)).delete()
      const kept = rows.filter((row) => row.status !== 'pending').map((row) => ({
        ...row,
        referee_email: null,
        referee_email_key: null,
        updated_at: now
      }))
      if (kept.length) {
        await trx('loyalty_referrals').whereIn('id', kept.map((row) => row.id)).update({
          referee_email: null,
          referee_email_key: null,
          updated_at: now
        })
      }
      return { withdrawn, kept }
    },

    entriesMentioning (storeId: string, customerId: string, text: string, trx: Knex): Promise<Array<{ id: number, reason: string }>> {
      return trx('loyalty_ledger').where({ store_env_id: storeId, customer_id: customerId }).whereRaw('lower(reason) like ?', [`%${text}%`])
        .select('id', 'reason')
    },

    /** Erasure only: the ledger is otherwise append-only. */
    async setReason (id: number, reason: string, trx: Knex) {
      await trx('loyalty_ledger').where({ id }).update({ reason })
    },

    async hasOrders (storeId: string, key: string, trx: Knex = db): Promise<boolean> {
      // Orders keep the address as sent, so case does not count (indexed: migrations/20261128020000_lookup_indexes.ts).
      return Boolean(await trx('orders').where({ store_env_id: storeId }).where(equalsIgnoringCase(trx, 'customer_email', key)).first('id'))
    }
  }
}
export type LoyaltyRepository = ReturnType<typeof loyaltyRepository>
