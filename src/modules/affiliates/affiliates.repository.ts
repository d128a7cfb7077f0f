import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'

export interface AffiliateRow {
  id: string
  org_id: string
  store_env_id: string
  customer_id: string | null
  name: string
  code: string
  commission_bp: number
  created_at: number
  updated_at: number
}

export interface ReferralRow {
  id: string
  org_id: string
  store_env_id: string
  affiliate_id: string
  platform_order_id: string
  currency: string | null
  order_total_cents: number | null
  commission_bp: number
  commission_cents: number | null
  commission_usd_cents: number | null
  usd_rate: string | null
  capped: boolean | number
  status: 'payable' | 'pending_rate'
  created_at: number
  updated_at: number
}

type Page = { offset: number, limit: number }

/** Affiliates, referrals and the store's USD rates; every query names its store. */
export function affiliatesRepository (db: Knex) {
  return {
    async insert (row: AffiliateRow, trx: Knex) {
      await trx('affiliates').insert(row)
    },

    /** With `lock`, a locking read (lib/bulk.ts): changes of one affiliate then take turns on current values. */
    find (storeId: string, id: string, trx: Knex = db, lock = false): Promise<AffiliateRow | undefined> {
      return lockForWrite(trx<AffiliateRow>('affiliates').where({ store_env_id: storeId, id }), lock).first()
    },

    async codeTaken (storeId: string, code: string, exceptId: string | null, trx: Knex): Promise<boolean> {
      const query = trx('affiliates').where({ store_env_id: storeId, code })
      if (exceptId) query.whereNot({ id: exceptId })
      return Boolean(await query.first('id'))
    },

    async byCodes (storeId: string, codes: string[], trx: Knex): Promise<Map<string, AffiliateRow>> {
      const rows = codes.length ? await trx<AffiliateRow>('affiliates').where({ store_env_id: storeId }).whereIn('code', codes) : []
      return new Map(rows.map((row) => [row.code, row]))
    },

    async update (storeId: string, id: string, changes: Partial<AffiliateRow>, trx: Knex) {
      await trx('affiliates').where({ store_env_id: storeId, id }).update(changes)
    },

    async delete (storeId: string, id: string, trx: Knex) {
      await trx('affiliate_referrals').where({ store_env_id: storeId, affiliate_id: id }).delete()
      return trx('affiliates').where({ store_env_id: storeId, id }).delete()
    },

    list (storeId: string, filter: { updatedSince: number | null }, page: Page) {
      const base = db<AffiliateRow>('affiliates').where({ store_env_id: storeId })
      if (filter.updatedSince !== null) base.where('updated_at', '>=', filter.updatedSince)
      return countAndPage<AffiliateRow>(base, page, (q) => q.orderBy('updated_at', 'desc').orderBy('id', 'desc'))
    },

    /** The referrals of these orders, locked for the order upsert that is about to write them. */
    async referralsOfOrders (storeId: string, orderIds: string[], trx: Knex): Promise<Map<string, ReferralRow>> {
      const rows = orderIds.length
        ? await lockForWrite(rowsByKeys<ReferralRow>(trx, 'affiliate_referrals', storeId, 'platform_order_id', orderIds), true)
        : []
      return new Map(rows.map((row) => [row.platform_order_id, row]))
    },

    async pendingIn (storeId: string, currencies: string[], trx: Knex): Promise<ReferralRow[]> {
      if (!currencies.length) return []
      return lockForWrite(
        trx<ReferralRow>('affiliate_referrals').where({ store_env_id: storeId, status: 'pending_rate' }).whereIn('currency', currencies)
          .orderBy('id'),
        true
      )
    },

    async insertReferrals (rows: ReferralRow[], trx: Knex) {
      if (rows.length) await trx('affiliate_referrals').insert(rows)
    },

    async updateReferral (row: ReferralRow, trx: Knex) {
      const { id, store_env_id: storeId, ...rest } = row
      await trx('affiliate_referrals').where({ store_env_id: storeId, id }).update(rest)
    },

    listReferrals (storeId: string, affiliateId: string, filter: { updatedSince: number | null, status?: string }, page: Page) {
      const base = db<ReferralRow>('affiliate_referrals').where({ store_env_id: storeId, affiliate_id: affiliateId })
      if (filter.updatedSince !== null) base.where('updated_at', '>=', filter.updatedSince)
      if (filter.status) base.where('status', filter.status)
      return countAndPage<ReferralRow>(base, page, (q) => q.orderBy('updated_at', 'desc').orderBy('id', 'desc'))
    },

    /** Commission per status and currency of one affiliate (index affiliate_id, updated_at keeps it to its rows). */
    async totals (
      storeId: string,
      affiliateId: string
    ): Promise<Array<{ status: string, currency: string | null, referrals: number, commission: number | null }>> {
      const rows = await db('affiliate_referrals').where({ store_env_id: storeId, affiliate_id: affiliateId })
        .groupBy('status', 'currency').orderBy('status').orderBy('currency')
        .select('status', 'currency').count({ referrals: '*' }).sum({ commission: 'commission_cents' }) as Array<Record<string, unknown>>
      return rows.map((row) => ({
        status: String(row.status),
        currency: row.currency as string | null,
        referrals: Number(row.referrals),
        commission: row.commission == null ? null : Number(row.commission)
      }))
    },

    /** `lock`: an order upsert's read, so a rate saved meanwhile either precedes it or settles what it records. */
    async settings (storeId: string, trx: Knex = db, lock = false): Promise<{ rates: Record<string, string>, updatedAt: number | null }> {
      const row = await lockForWrite(trx('affiliate_settings').where({ store_env_id: storeId }), lock).first()
      return row
        ? { rates: JSON.parse(row.usd_rates) as Record<string, string>, updatedAt: Number(row.updated_at) }
        : { rates: {}, updatedAt: null }
    },

    async saveSettings (storeId: string, orgId: string, rates: Record<string, string>, now: number, trx: Knex) {
      await trx('affiliate_settings').insert({ store_env_id: storeId, org_id: orgId, usd_rates: JSON.stringify(rates), updated_at: now })
        .onConflict('store_env_id').merge(['usd_rates', 'updated_at'])
    }
  }
}
export type AffiliatesRepository = ReturnType<typeof affiliatesRepository>
