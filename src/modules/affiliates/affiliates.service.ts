import type { Precondition } from '../../lib/conditional.js'
import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { newId } from '../../lib/ids.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import type { AffiliateRow, AffiliatesRepository, ReferralRow } from './affiliates.repository.js'
import { RATE_DIGITS, centsOf, commissionOf, decimalText, scaledDecimal, usdRateOf } from './commission.js'
import { isDuplicateKey } from '../../db.js'

interface Deps { db: Knex, repo: AffiliatesRepository, events: EventLog, clock: Clock }

interface AffiliateInput { customerId?: string | null, name?: string, code?: string, commissionRate?: string | number }

/** What an order upsert hands over: the order's key, its stored total, currency and code (orders.service.ts). */
export interface ReferredOrder {
  platform_order_id: string
  total: number | string | null
  currency: string | null
  affiliate_code?: string | null
}

export function presentAffiliate (row: AffiliateRow) {
  return {
    id: row.id,
    customerId: row.customer_id,
    name: row.name,
    code: row.code,
    commissionRate: decimalText(BigInt(row.commission_bp), 4),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

export function presentReferral (row: ReferralRow) {
  const number = (value: number | string | null) => value == null ? null : Number(value)
  return {
    id: row.id,
    affiliateId: row.affiliate_id,
    orderId: row.platform_order_id,
    currency: row.currency,
    orderTotalCents: number(row.order_total_cents),
    commissionRate: decimalText(BigInt(row.commission_bp), 4),
    commissionCents: number(row.commission_cents),
    commissionUsdCents: number(row.commission_usd_cents),
    usdRate: row.usd_rate,
    capped: Boolean(row.capped),
    status: row.status,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/** The pattern already held it to four decimals within 0..1. */
const RATE_TEXT = /^(0(\.[0-9]{1,4})?|1(\.0{1,4})?)$/

/** A rate sent as a JSON number, as its shortest decimal text ("1e-7" and 0.12345 are refused, not rounded). */
function rateText (rate: string | number): string {
  const text = typeof rate === 'number' && Number.isFinite(rate) ? String(rate) : rate
  if (typeof text !== 'string' || !RATE_TEXT.test(text)) {
    throw new errors.InvalidRequest('commissionRate: must be from 0 to 1 with at most four decimals')
  }
  return text
}

function basisPoints (rate: string | number): number {
  return Number(scaledDecimal(rateText(rate), 4))
}

/** The referral's commission from its total, its rate and the store's rates; the row's other fields stay. */
function priced (row: ReferralRow, rates: Record<string, string>): ReferralRow {
  const usdRate = usdRateOf(row.currency, rates)
  const total = row.order_total_cents == null ? 0n : BigInt(row.order_total_cents)
  const commission = commissionOf(total, BigInt(row.commission_bp), usdRate)
  return {
    ...row,
    commission_cents: commission.cents === null ? null : Number(commission.cents),
    commission_usd_cents: commission.usdCents === null ? null : Number(commission.usdCents),
    usd_rate: commission.status === 'pending_rate' || usdRate === null ? null : decimalText(usdRate, RATE_DIGITS),
    capped: commission.capped,
    status: commission.status
  }
}

const PRICED_FIELDS = ['currency', 'order_total_cents', 'commission_cents', 'commission_usd_cents', 'usd_rate', 'capped', 'status'] as const
function samePrice (a: ReferralRow, b: ReferralRow): boolean {
  return PRICED_FIELDS.every((field) =>
    String(a[field] ?? '') === String(b[field] ?? '') || (field === 'capped' && Boolean(a.capped) === Boolean(b.capped))
  )
}

export function affiliatesService ({ db, repo, events, clock }: Deps) {
  async function write<T> (work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await db.transaction(work)
    } catch (err) {
      if (isDuplicateKey(err)) throw new errors.Conflict('An affiliate with this code already exists in the store')
      throw err
    }
  }

  async function found (storeId: string, id: string, trx?: Knex, lock = false) {
    const row = await repo.find(storeId, id, trx, lock)
    if (!row) throw new errors.NotFound('Affiliate')
    return row
  }

  return {
    async create (store: StoreEnv, input: Required<Pick<AffiliateInput, 'name' | 'code' | 'commissionRate'>> & AffiliateInput) {
      const now = clock()
      const row: AffiliateRow = {
        id: newId('aff'),
        org_id: store.orgId,
        store_env_id: store.id,
        customer_id: input.customerId ?? null,
        name: input.name,
        code: input.code.toUpperCase(),
        commission_bp: basisPoints(input.commissionRate),
        created_at: now,
        updated_at: now
      }
      return write(async (trx) => {
        if (await repo.codeTaken(store.id, row.code, null, trx)) {
          throw new errors.Conflict('An affiliate with this code already exists in the store')
        }
        await repo.insert(row, trx)
        await events.appendMany(trx, store.id, store.orgId, [{ type: 'affiliate.created', data: presentAffiliate(row) }])
        return presentAffiliate(row)
      })
    },

    /** `precondition`: the request's If-Match, checked on the affiliate as locked here (also in `remove`). */
    async update (store: StoreEnv, id: string, input: AffiliateInput, precondition: Precondition | null = null) {
      return write(async (trx) => {
        // A locking read: a change made at the same moment is seen, not written over with stale fields.
        const before = await found(store.id, id, trx, true)
        precondition?.(presentAffiliate(before))
        const after: AffiliateRow = {
          ...before,
          customer_id: input.customerId !== undefined ? input.customerId : before.customer_id,
          name: input.name ?? before.name,
          code: input.code?.toUpperCase() ?? before.code,
          commission_bp: input.commissionRate !== undefined ? basisPoints(input.commissionRate) : Number(before.commission_bp)
        }
        const changed = after.customer_id !== before.customer_id || after.name !== before.name || after.code !== before.code ||
          after.commission_bp !== Number(before.commission_bp)
        if (!changed) return presentAffiliate(before)
        if (after.code !== before.code && await repo.codeTaken(store.id, after.code, id, trx)) {
          throw new errors.Conflict('An affiliate with this code already exists in the store')
        }
        after.updated_at = clock()
        await repo.update(store.id, id, {
          customer_id: after.customer_id,
          name: after.name,
          code: after.code,
          commission_bp: after.commission_bp,
          updated_at: after.updated_at
        }, trx)
        await events.appendMany(trx, store.id, store.orgId, [{ type: 'affiliate.updated', data: presentAffiliate(after) }])
        return presentAffiliate(after)
      })
    },

    async remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      await db.transaction(async (trx) => {
        const row = await found(store.id, id, trx, true)
        precondition?.(presentAffiliate(row))
        // Locking, as changes read it: a change and a delete at once queue on the row in one order (a plain read
        // here deadlocked against them), and a delete that comes second finds nothing (404, no second event).
        if (!(await repo.delete(store.id, id, trx))) throw new errors.NotFound('Affiliate')
        await events.appendMany(trx, store.id, store.orgId, [{ type: 'affiliate.deleted', data: { id: row.id, code: row.code } }])
      })
    },

    async get (storeId: string, id: string) {
      return presentAffiliate(await found(storeId, id))
    },

    async list (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, { updatedSince: toMs(query.updatedSince) }, page)
      return envelope(rows.map(presentAffiliate), total, page)
    },

    async referrals (storeId: string, id: string, query: PageQuery & { updatedSince?: string, status?: string }) {
      await found(storeId, id)
      const page = toPage(query)
      const { total, rows } = await repo.listReferrals(storeId, id, { updatedSince: toMs(query.updatedSince), status: query.status }, page)
      return envelope(rows.map(presentReferral), total, page)
    },

    /** What the affiliate earned, per status and currency (the admin page's summary). */
    async totals (storeId: string, id: string) {
      await found(storeId, id)
      return repo.totals(storeId, id)
    },

    async settings (storeId: string) {
      const { rates, updatedAt } = await repo.settings(storeId)
      return { usdRates: rates, updatedAt: iso(updatedAt) }
    },

    /** Replaces the rates and settles the referrals that waited for one, in one transaction. */
    async saveSettings (store: StoreEnv, usdRates: Record<string, string>) {
      for (const [currency, rate] of Object.entries(usdRates)) {
        if (currency === 'USD') throw new errors.InvalidRequest('usdRates: USD is always 1 and is not listed')
        if (scaledDecimal(rate, RATE_DIGITS) === 0n) throw new errors.InvalidRequest(`usdRates.${currency}: a rate must be above 0`)
      }
      const now = clock()
      await db.transaction(async (trx) => {
        await repo.saveSettings(store.id, store.orgId, usdRates, now, trx)
        const settled = (await repo.pendingIn(store.id, Object.keys(usdRates), trx)).map((row) => ({
          ...priced(row, usdRates),
          updated_at: now
        }))
        for (const row of settled) await repo.updateReferral(row, trx)
        await events.appendMany(trx, store.id, store.orgId, [
          { type: 'affiliate_settings.updated', data: { usdRates, updatedAt: iso(now) } },
          ...settled.map((row) => ({ type: 'affiliate.referral_updated', data: presentReferral(row) }))
        ])
      })
      return { usdRates, updatedAt: iso(now) }
    },

    /**
     * The order upsert's hook (orders.service.ts `onWritten`, inside its transaction): each changed order that carries
     * a known code gets its referral, one per order; a re-sent order recomputes its referral's price only.
     */
    async recordReferrals (trx: Knex.Transaction, store: StoreEnv, orders: ReferredOrder[]) {
      const withCode = orders.filter((order) => order.affiliate_code)
      if (!withCode.length) return
      const existing = await repo.referralsOfOrders(store.id, withCode.map((order) => order.platform_order_id), trx)
      const codes = [...new Set(withCode.map((order) => order.affiliate_code!.toUpperCase()))]
      const affiliates = await repo.byCodes(store.id, codes, trx)
      const { rates } = await repo.settings(store.id, trx, true)
      const now = clock()
      const created: ReferralRow[] = []
      const updated: ReferralRow[] = []
      for (const order of withCode) {
        const before = existing.get(order.platform_order_id)
        const affiliate = affiliates.get(order.affiliate_code!.toUpperCase())
        if (!before && !affiliate) continue
        const base: ReferralRow = before ?? {
          id: newId('ref'),
          org_id: store.orgId,
          store_env_id: store.id,
          affiliate_id: affiliate!.id,
          platform_order_id: order.platform_order_id,
          currency: null,
          order_total_cents: null,
          commission_bp: Number(affiliate!.commission_bp),
          commission_cents: null,
          commission_usd_cents: null,
          usd_rate: null,
          capped: false,
          status: 'pending_rate',
          created_at: now,
          updated_at: now
        }
        const row = priced({
          ...base,
          currency: order.currency,
          order_total_cents: order.total == null ? null : Number(centsOf(order.total))
        }, rates)
        if (!before) created.push(row)
        else if (!samePrice(before, row)) updated.push({ ...row, updated_at: now })
      }
      await repo.insertReferrals(created, trx)
      for (const row of updated) await repo.updateReferral(row, trx)
      await events.appendMany(trx, store.id, store.orgId, [
        ...created.map((row) => ({ type: 'affiliate.referral_recorded', data: presentReferral(row) })),
        ...updated.map((row) => ({ type: 'affiliate.referral_updated', data: presentReferral(row) }))
      ])
    }
  }
}
export type AffiliatesService = ReturnType<typeof affiliatesService>
