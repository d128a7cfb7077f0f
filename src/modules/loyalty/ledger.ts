import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { lockEventLog, type EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { type AccountRow, type EntryKind, type EntryRow, type LoyaltyRepository } from './loyalty.repository.js'
import { isDuplicateKey } from '../../db.js'

export interface Tier { name: string, minPoints: number }

export const DEFAULT_TIERS: Tier[] = [{ name: 'bronze', minPoints: 0 }, { name: 'silver', minPoints: 1000 }, {
  name: 'gold',
  minPoints: 5000
}]

export function tierOf (tiers: Tier[], lifetime: number): string | null {
  let best: Tier | null = null
  for (const tier of tiers) if (lifetime >= tier.minPoints && (!best || tier.minPoints >= best.minPoints)) best = tier
  return best?.name ?? null
}

export function presentAccount (row: AccountRow | undefined, customerId: string, tiers: Tier[]) {
  const lifetime = Number(row?.lifetime_points ?? 0)
  return {
    id: row?.id ?? null,
    customerId,
    balance: Number(row?.balance ?? 0),
    lifetimePoints: lifetime,
    tier: tierOf(tiers, lifetime),
    createdAt: iso(row?.created_at),
    updatedAt: iso(row?.updated_at)
  }
}

export function presentEntry (row: EntryRow) {
  return {
    id: `lle_${row.id}`,
    kind: row.kind,
    points: Number(row.points),
    balanceAfter: Number(row.balance_after),
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    createdAt: iso(row.created_at)!
  }
}

export interface Grant {
  customerId: string
  kind: EntryKind
  /** What the entry happens once per, for this customer and kind. */
  key: string
  points: number
  reason: string
  /** The event the entry appends, with data of its own beside the account's. */
  event: { type: string, data?: Record<string, unknown> }
}

export interface GrantResult { applied: boolean, entry: EntryRow, account: AccountRow }

interface Deps { repo: LoyaltyRepository, events: EventLog, clock: Clock, tiersOf: (storeId: string, trx: Knex) => Promise<Tier[]> }

/**
 * The one way points move. The store's event lock is taken first, so a store's ledger writers (API transactions, the
 * order and review hooks, the birthday job on any instance) queue in one order and never deadlock with the event
 * appenders; under it, an entry already made for (customer, kind, key) is answered instead of a second one, and the
 * ledger's unique key stops what slips past (a writer whose snapshot predates the other's commit).
 */
export function ledger ({ repo, events, clock, tiersOf }: Deps) {
  async function accountFor (trx: Knex.Transaction, store: StoreEnv, customerId: string, now: number): Promise<AccountRow> {
    const found = await repo.account(store.id, customerId, trx, true)
    if (found) return found
    const row: AccountRow = {
      id: newId('lya'),
      org_id: store.orgId,
      store_env_id: store.id,
      customer_id: customerId,
      balance: 0,
      lifetime_points: 0,
      created_at: now,
      updated_at: now
    }
    await repo.insertAccount(row, trx)
    return row
  }

  return async function grant (
    trx: Knex.Transaction,
    store: StoreEnv,
    input: Grant,
    customer: Record<string, unknown>
  ): Promise<GrantResult> {
    await lockEventLog(trx, store.id)
    const now = clock()
    const existing = await repo.entry(store.id, input.customerId, input.kind, input.key, trx)
    // A locking read: a plain one answers from this transaction's snapshot, which on MySQL can predate the account
    // the first of parallel requests made (a replay then showed no account and a zero balance).
    if (existing) return { applied: false, entry: existing, account: (await repo.account(store.id, input.customerId, trx, true))! }
    const account = await accountFor(trx, store, input.customerId, now)
    const balance = Number(account.balance) + input.points
    if (balance < 0) throw new errors.InsufficientPoints(Number(account.balance), input.points)
    const lifetime = Number(account.lifetime_points) + Math.max(0, input.points)
    if (!Number.isSafeInteger(lifetime)) throw new errors.Conflict('The account cannot hold more points')
    const entry: EntryRow = {
      org_id: store.orgId,
      store_env_id: store.id,
      account_id: account.id,
      customer_id: input.customerId,
      kind: input.kind,
      idempotency_key: input.key,
      points: input.points,
      balance_after: balance,
      reason: input.reason,
      created_at: now
    }
    try {
      entry.id = await repo.insertEntry(entry, trx)
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
      const first = await repo.entry(store.id, input.customerId, input.kind, input.key, trx)
      return { applied: false, entry: first!, account }
    }
    await repo.setBalance(account.id, balance, lifetime, now, trx)
    const after = { ...account, balance, lifetime_points: lifetime, updated_at: now }
    const tiers = await tiersOf(store.id, trx)
    await events.append(trx, {
      orgId: store.orgId,
      storeEnvId: store.id,
      type: input.event.type,
      data: {
        ...presentAccount(after, input.customerId, tiers),
        ...customer,
        points: input.points,
        reason: input.kind,
        description: input.reason,
        entry: presentEntry(entry),
        ...input.event.data
      }
    })
    return { applied: true, entry, account: after }
  }
}
export type LedgerGrant = ReturnType<typeof ledger>
