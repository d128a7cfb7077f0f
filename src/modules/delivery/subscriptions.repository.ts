import type { Knex } from 'knex'
import { isMysql } from '../../db.js'
import { countAndPage } from '../../lib/pagination.js'
import { lockForWrite } from '../../lib/bulk.js'

/**
 * Outbound webhooks (`webhook`), connector REST hooks (`hook`) and email providers (`provider`, delivery/providers.ts)
 * are kinds of one subscription.
 */
export type SubscriptionKind = 'webhook' | 'hook' | 'provider'
export type SubscriptionStatus = 'active' | 'disabled' | 'retired' | 'deleted'

export interface SubscriptionRow {
  id: string
  org_id: string
  store_env_id: string
  kind: SubscriptionKind
  url: string
  events: string
  description: string | null
  secret_sealed: string
  status: SubscriptionStatus
  status_reason: string | null
  status_changed_at: number | null
  consecutive_failures: number
  created_by: string | null
  created_at: number
}

export function matchesEvent (events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type)
}

/** Tenant ids are explicit on every query that a caller can reach. */
export function subscriptionsRepository (db: Knex) {
  return {
    async insert (row: SubscriptionRow, trx: Knex = db): Promise<void> {
      await trx('webhook_subscriptions').insert(row)
    },

    /** `lock`: held until `trx` ends (MySQL; SQLite's single writer already is the lock), for a write that checks it first. */
    find (storeId: string, kind: SubscriptionKind, id: string, trx: Knex = db, lock = false): Promise<SubscriptionRow | undefined> {
      return lockForWrite(trx<SubscriptionRow>('webhook_subscriptions').where({ store_env_id: storeId, kind, id }), lock).first()
    },

    async list (
      storeId: string,
      kind: SubscriptionKind,
      filter: { statuses: SubscriptionStatus[], url?: string, since?: number | null, offset: number, limit: number }
    ) {
      const base = db<SubscriptionRow>('webhook_subscriptions').where({ store_env_id: storeId, kind }).whereIn('status', filter.statuses)
      if (filter.url !== undefined) base.where({ url: filter.url })
      // A subscription changes when it is created or its status moves (disabled, enabled, retired).
      if (filter.since != null) base.whereRaw('COALESCE(status_changed_at, created_at) >= ?', [filter.since])
      return countAndPage<SubscriptionRow>(base, filter, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
    },

    /** Moves a subscription out of one of `from`; true only for the call that changed it. */
    async setStatus (
      id: string,
      to: SubscriptionStatus,
      from: SubscriptionStatus[],
      reason: string | null,
      now: number,
      trx: Knex = db
    ): Promise<boolean> {
      const changed = await trx('webhook_subscriptions').where({ id }).whereIn('status', from)
        .update({ status: to, status_reason: reason, status_changed_at: now })
      return changed === 1
    },

    /**
     * Deletes the REST hooks the given credentials (`oauth:<grant>`) made in an organization: a platform's hooks end
     * with its connection. Their queued deliveries are cancelled by the worker, which sends only to active ones.
     */
    async endHooksOf (orgId: string, creators: string[], reason: string, now: number, trx: Knex = db): Promise<number> {
      if (!creators.length) return 0
      return trx('webhook_subscriptions').where({ org_id: orgId, kind: 'hook' }).whereIn('created_by', creators).whereIn('status', [
        'active',
        'disabled'
      ])
        .update({ status: 'deleted', status_reason: reason, status_changed_at: now })
    },

    /** A disabled subscription back to active, with its failure count cleared (re-enabled by a person). */
    /** Whether the subscription is disabled, holding its row until the transaction ends (MySQL; SQLite has one writer). */
    async lockDisabled (id: string, trx: Knex.Transaction): Promise<boolean> {
      const query = trx('webhook_subscriptions').where({ id, status: 'disabled' }).first('id')
      return Boolean(await (isMysql(trx) ? query.forUpdate() : query))
    },

    async enable (id: string, now: number, trx: Knex = db): Promise<boolean> {
      const changed = await trx('webhook_subscriptions').where({ id, status: 'disabled' })
        .update({ status: 'active', status_reason: 'Enabled again', status_changed_at: now, consecutive_failures: 0 })
      return changed === 1
    },

    /** The store's live subscriptions, read inside the appending transaction for the fan-out. */
    active (trx: Knex, storeId: string): Promise<Array<Pick<SubscriptionRow, 'id' | 'events'>>> {
      return trx('webhook_subscriptions').select('id', 'events').where({ store_env_id: storeId, status: 'active' })
    }
  }
}
export type SubscriptionsRepository = ReturnType<typeof subscriptionsRepository>
