import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { toMs } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import type { OrderRow } from '../orders/index.js'
import { emailKey, type CustomersRepository, scrub, type ErasureSubject, type LeadInput } from '../customers/index.js'
import { DEFAULT_TIERS, ledger, presentAccount, presentEntry, type Grant, type Tier } from './ledger.js'
import { type LoyaltyRepository, type ReferralRow, type SettingsRow } from './loyalty.repository.js'
import type { Settings } from './loyalty.schemas.js'
import { isDuplicateKey } from '../../db.js'

/** A birthday or referral reward just granted (one ledger entry), as the granting transaction's listener sees it. */
export interface RewardGranted {
  kind: 'birthday' | 'referral'
  entryId: number
  customerId: string
  email: string | null
  name: string | null
  points: number
  balance: number
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A birthday or referral reward was granted, in the granting transaction (the email module queues its mail). */
    'loyalty.rewarded': { payload: { store: StoreEnv, reward: RewardGranted } }
  }
}

interface Deps {
  db: Knex
  repo: LoyaltyRepository
  customers: CustomersRepository
  events: EventLog
  clock: Clock
  bus: DomainBus
  /** Makes (or finds) the customer of an address, appending its event (customers.service.ts fromLead); answers its id. */
  makeCustomer?: (trx: Knex.Transaction, lead: LeadInput) => Promise<string>
}

function presentSettings (row: SettingsRow | undefined) {
  return {
    pointsPerUnit: Number(row?.points_per_unit ?? 0),
    birthdayReward: { points: Number(row?.birthday_points ?? 0) },
    referralReward: { referrerPoints: Number(row?.referrer_points ?? 0), refereePoints: Number(row?.referee_points ?? 0) },
    tiers: row ? JSON.parse(row.tiers) as Tier[] : DEFAULT_TIERS,
    updatedAt: iso(row?.updated_at)
  }
}

export function presentReferral (row: ReferralRow) {
  return {
    id: row.id,
    referrerCustomerId: row.referrer_customer_id,
    refereeEmail: row.referee_email,
    status: row.status,
    refereeCustomerId: row.referee_customer_id,
    orderId: row.order_id,
    createdAt: iso(row.created_at)!,
    completedAt: iso(row.completed_at),
    updatedAt: iso(row.updated_at)!
  }
}

/** The most one order earns, so a huge total never overflows an account. */
const MAX_ORDER_POINTS = 1_000_000_000n

/**
 * Points for an order total (a decimal amount as stored, whole cents): whole units only, in integer arithmetic, so
 * 0.1 + 0.2 style float errors never gain or lose a point; capped at a billion.
 */
export function orderPoints (total: number, pointsPerUnit: number): number {
  const cents = BigInt(Math.round(Number(`${total}e2`)))
  const points = (cents / 100n) * BigInt(pointsPerUnit)
  return Number(points > MAX_ORDER_POINTS ? MAX_ORDER_POINTS : points)
}

export function loyaltyService ({ db, repo, customers, events, clock, bus, makeCustomer }: Deps) {
  const tiersOf = async (storeId: string, trx: Knex) => presentSettings(await repo.settings(storeId, trx)).tiers
  const grant = ledger({ repo, events, clock, tiersOf })

  /**
   * What events say about the customer (docs/contract/resources.md#loyalty: loyalty mails go out from these events).
   */
  async function customerData (storeId: string, customerId: string, trx: Knex) {
    const c = await customers.find(storeId, customerId, trx)
    if (!c) throw new errors.NotFound('Customer')
    return { customerId, customerEmail: c.email, customerName: [c.first_name, c.last_name].filter(Boolean).join(' ') || null }
  }

  async function reward (trx: Knex.Transaction, store: StoreEnv, input: Grant) {
    if (input.points <= 0) return null
    const customer = await customerData(store.id, input.customerId, trx)
    const result = await grant(trx, store, input, customer)
    if (result.applied && (input.kind === 'birthday' || input.kind === 'referral')) {
      const reward = {
        kind: input.kind,
        entryId: result.entry.id!,
        customerId: input.customerId,
        email: customer.customerEmail,
        name: customer.customerName,
        points: input.points,
        balance: Number(result.account.balance)
      }
      await bus.emit('loyalty.rewarded', trx, { store, reward })
    }
    return result
  }

  return {
    grant: reward,

    getSettings: async (storeId: string) => presentSettings(await repo.settings(storeId)),

    async putSettings (store: StoreEnv, body: typeof Settings.static) {
      return db.transaction(async (trx) => {
        const row: SettingsRow = {
          store_env_id: store.id,
          org_id: store.orgId,
          points_per_unit: body.pointsPerUnit,
          birthday_points: body.birthdayReward.points,
          referrer_points: body.referralReward.referrerPoints,
          referee_points: body.referralReward.refereePoints,
          tiers: JSON.stringify(body.tiers ?? DEFAULT_TIERS),
          updated_at: clock()
        }
        await repo.saveSettings(row, trx)
        const out = presentSettings(row)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'loyalty.settings.updated', data: out })
        return out
      })
    },

    async listAccounts (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const [{ total, rows }, tiers] = await Promise.all([repo.listAccounts(storeId, toMs(query.updatedSince), page), tiersOf(storeId, db)])
      return envelope(rows.map((row) => presentAccount(row, row.customer_id, tiers)), total, page)
    },

    async getAccount (storeId: string, customerId: string, query: PageQuery) {
      if (!await customers.find(storeId, customerId)) throw new errors.NotFound('Customer')
      const account = await repo.account(storeId, customerId)
      const page = toPage(query)
      const { total, rows } = account ? await repo.ledger(account.id, page) : { total: 0, rows: [] }
      return { ...presentAccount(account, customerId, await tiersOf(storeId, db)), ledger: envelope(rows.map(presentEntry), total, page) }
    },

    async transact (store: StoreEnv, customerId: string, body: { points: number, reason: string, idempotencyKey: string }) {
      if (body.points === 0) throw new errors.InvalidRequest('points: must not be 0')
      return db.transaction(async (trx) => {
        const result = await grant(trx, store, {
          customerId,
          kind: 'api',
          key: body.idempotencyKey,
          points: body.points,
          reason: body.reason,
          event: { type: 'loyalty.account.updated' }
        }, await customerData(store.id, customerId, trx))
        const { entry, account } = result
        if (!result.applied && (Number(entry.points) !== body.points || entry.reason !== body.reason)) {
          throw new errors.IdempotencyKeyReused()
        }
        return {
          applied: result.applied,
          entry: presentEntry(entry),
          account: presentAccount(account, customerId, await tiersOf(store.id, trx))
        }
      })
    },

    async refer (store: StoreEnv, body: { referrerCustomerId: string, refereeEmail: string }) {
      const key = emailKey(body.refereeEmail)!
      const now = clock()
      return db.transaction(async (trx) => {
        const referrer = await customers.find(store.id, body.referrerCustomerId, trx)
        if (!referrer) throw new errors.NotFound('Customer')
        if (referrer.email_key === key) throw new errors.Conflict('A customer cannot refer their own address')
        if (await repo.hasOrders(store.id, key, trx)) {
          throw new errors.Conflict('This address has already placed an order: only new customers can be referred')
        }
        const row: ReferralRow = {
          id: newId('ref'),
          org_id: store.orgId,
          store_env_id: store.id,
          referrer_customer_id: referrer.id,
          referee_email: body.refereeEmail,
          referee_email_key: key,
          referee_customer_id: null,
          order_id: null,
          status: 'pending',
          created_at: now,
          completed_at: null,
          updated_at: now
        }
        try {
          await repo.insertReferral(row, trx)
        } catch (err) {
          if (isDuplicateKey(err)) throw new errors.Conflict('This address was already referred')
          throw err
        }
        const out = presentReferral(row)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'loyalty.referral.created', data: out })
        return out
      })
    },

    async listReferrals (storeId: string, query: PageQuery & { status?: string, updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.listReferrals(storeId, { status: query.status, updatedSince: toMs(query.updatedSince) }, page)
      return envelope(rows.map(presentReferral), total, page)
    },

    /**
     * Orders' customer resolution (in the upsert's transaction): an order of a referred address that names no known
     * customer, usually a new customer's first order, gets one made from its address and name, so the referral
     * completes below (docs/contract/resources.md#loyalty). Only while the referral is pending, whose row lock
     * serializes two first orders of one address; afterwards the customer exists and later orders find it by address.
     */
    async linkReferees (
      trx: Knex.Transaction,
      store: StoreEnv,
      refs: Array<{ email?: string | null, name?: string | null }>,
      ids: Array<string | null>
    ) {
      const open = [...new Set(refs.flatMap((ref, i) => ids[i] === null && emailKey(ref.email) ? [emailKey(ref.email)!] : []))]
      if (!makeCustomer || open.length === 0) return ids
      const made = new Map<string, string>()
      for (const referral of await repo.pendingReferrals(store.id, open, trx)) {
        const ref = refs.find((r, i) => ids[i] === null && emailKey(r.email) === referral.referee_email_key)!
        made.set(
          referral.referee_email_key!,
          await makeCustomer(trx, { orgId: store.orgId, storeEnvId: store.id, email: ref.email!.trim(), name: ref.name ?? null })
        )
      }
      return ids.map((id, i) => id ?? made.get(emailKey(refs[i].email) ?? '') ?? null)
    },

    /**
     * Orders hook (in the upsert's transaction): points for orders of linked customers (once per order), and pending
     * referrals completed by the referee's first order.
     */
    async onOrdersWritten (trx: Knex.Transaction, store: StoreEnv, rows: OrderRow[]) {
      const settings = presentSettings(await repo.settings(store.id, trx))
      if (settings.pointsPerUnit > 0) {
        for (const order of rows) {
          if (!order.customer_id || order.total == null) continue
          await reward(trx, store, {
            customerId: order.customer_id,
            kind: 'order',
            key: order.platform_order_id,
            points: orderPoints(Number(order.total), settings.pointsPerUnit),
            reason: `Order ${order.platform_order_id}`,
            event: { type: 'loyalty.account.updated' }
          })
        }
      }
      const linked = rows.filter((o) => o.customer_id && emailKey(o.customer_email))
      for (const referral of await repo.pendingReferrals(store.id, [...new Set(linked.map((o) => emailKey(o.customer_email)!))], trx)) {
        const order = linked.find((o) => emailKey(o.customer_email) === referral.referee_email_key)!
        const completion = { referee_customer_id: order.customer_id!, order_id: order.platform_order_id, completed_at: clock() }
        await repo.completeReferral(referral.id, completion, trx)
        await events.append(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          type: 'loyalty.referral.updated',
          data: presentReferral({ ...referral, ...completion, status: 'completed', updated_at: completion.completed_at })
        })
        const data = { referralId: referral.id, referredEmail: referral.referee_email, orderId: order.platform_order_id }
        await reward(trx, store, {
          customerId: referral.referrer_customer_id,
          kind: 'referral',
          key: referral.id,
          points: settings.referralReward.referrerPoints,
          reason: 'Referral: a referred friend placed their first order',
          event: { type: 'loyalty.referral_reward', data: { ...data, role: 'referrer' } }
        })
        await reward(trx, store, {
          customerId: order.customer_id!,
          kind: 'referral',
          key: referral.id,
          points: settings.referralReward.refereePoints,
          reason: 'Referral: first order',
          event: { type: 'loyalty.referral_reward', data: { ...data, role: 'referee' } }
        })
      }
    },

    /** Customer erasure step: the referee address leaves referrals (a pending one is withdrawn) and ledger reasons. */
    async erase (trx: Knex.Transaction, subject: ErasureSubject) {
      const key = emailKey(subject.email)
      if (!key) return
      const { withdrawn, kept } = await repo.forgetReferee(subject.storeEnvId, key, clock(), trx)
      const where = { orgId: subject.orgId, storeEnvId: subject.storeEnvId }
      for (const row of withdrawn) await events.append(trx, { ...where, type: 'loyalty.referral.deleted', data: { id: row.id } })
      for (const row of kept) await events.append(trx, { ...where, type: 'loyalty.referral.updated', data: presentReferral(row) })
      for (const entry of await repo.entriesMentioning(subject.storeEnvId, subject.customerId, key, trx)) {
        await repo.setReason(entry.id, scrub(entry.reason, [key], new Set()) as string, trx)
      }
    }
  }
}
export type LoyaltyService = ReturnType<typeof loyaltyService>
