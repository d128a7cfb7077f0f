import type { Knex } from 'knex'
import { isMysql } from '../../db.js'
import { withDeadlockRetry } from '../../lib/bulk.js'
import { matchesEvent, type SubscriptionKind, type SubscriptionStatus, type SubscriptionsRepository } from './subscriptions.repository.js'
import { countAndPage } from '../../lib/pagination.js'
import { prefix } from '../../lib/text.js'

/** A claimed delivery with what it takes to send it. */
export interface ClaimedDelivery {
  id: number
  org_id: string
  store_env_id: string
  subscription_id: string
  event_id: number
  /** The event's number within its store: its public id is `evt_<event_seq>`. */
  event_seq: number
  attempts: number
  url: string
  kind: SubscriptionKind
  secret_sealed: string
  subscription_status: SubscriptionStatus
  consecutive_failures: number
  event_type: string
  event_data: string
  event_created_at: number
}

export interface AttemptRecord {
  delivery: ClaimedDelivery
  token: string
  now: number
  responseCode: number | null
  durationMs: number
  error: string | null
}

/** Completions are short and idempotent under their claim token, so a deadlock victim simply runs again. */
function retryOnDeadlock (db: Knex, work: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  return withDeadlockRetry(() => db.transaction(work))
}

/**
 * Told, inside the worker's transaction, of a subscription whose status the worker changed (disabled after its last
 * retry, ended by a 410), so that the change appends its event as a person's would (modules/outbound-webhooks).
 */
export type StatusChangeListener = (trx: Knex.Transaction, subscriptionId: string) => Promise<void>

/**
 * The durable outbox (docs/contract/webhooks-and-delivery.md#delivery): rows are written with the event, claimed with a
 * lease, completed once.
 */
export function outboxRepository (db: Knex, subscriptions: SubscriptionsRepository, onStatusChange: StatusChangeListener = async () => {}) {
  const table = () => db('webhook_deliveries')

  function attemptRow (a: AttemptRecord, outcome: 'succeeded' | 'retrying' | 'failed', nextRetryAt: number | null) {
    return {
      org_id: a.delivery.org_id,
      store_env_id: a.delivery.store_env_id,
      subscription_id: a.delivery.subscription_id,
      delivery_id: a.delivery.id,
      event_id: a.delivery.event_id,
      attempt: a.delivery.attempts + 1,
      outcome,
      response_code: a.responseCode,
      duration_ms: Math.round(a.durationMs),
      error: a.error == null ? null : prefix(a.error, 500),
      next_retry_at: nextRetryAt,
      at: a.now
    }
  }

  async function recordAttempt (trx: Knex, a: AttemptRecord, outcome: 'succeeded' | 'retrying' | 'failed', nextRetryAt: number | null) {
    await trx('webhook_attempts').insert(attemptRow(a, outcome, nextRetryAt))
  }

  /** Ends the claim; false when the lease was lost (another worker owns the delivery now), so nothing is recorded. */
  async function finish (trx: Knex, a: AttemptRecord, changes: Record<string, unknown>): Promise<boolean> {
    const changed = await trx('webhook_deliveries').where({ id: a.delivery.id, claim_token: a.token })
      .update({
        claim_token: null,
        attempts: a.delivery.attempts + 1,
        last_response_code: a.responseCode,
        last_error: a.error == null ? null : prefix(a.error, 500),
        ...changes
      })
    return changed === 1
  }

  return {
    /**
     * Runs inside the appending transaction, so events and their deliveries commit (or vanish) together. The events
     * of one append are one store's: one subscription lookup and multi-row inserts serve the whole batch.
     */
    /** Queues a delivery of each event to each subscription that wants it; answers how many it queued. */
    async fanOut (
      trx: Knex.Transaction,
      events: Array<{ rowId: number, orgId: string, storeEnvId: string, type: string }>,
      now: number
    ): Promise<number> {
      if (events.length === 0) return 0
      const subs = (await subscriptions.active(trx, events[0].storeEnvId)).map((s) => ({
        id: s.id,
        events: JSON.parse(s.events) as string[]
      }))
      if (subs.length === 0) return 0
      const rows = events.flatMap((event) =>
        subs.filter((s) => matchesEvent(s.events, event.type)).map((s) => ({
          org_id: event.orgId,
          store_env_id: event.storeEnvId,
          subscription_id: s.id,
          event_id: event.rowId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now
        }))
      )
      // SQLite refuses a compound SELECT of more than 500 terms (knex's multi-row insert there): chunks of 200 there.
      const chunk = isMysql(trx) ? 1000 : 200
      for (let i = 0; i < rows.length; i += chunk) await trx('webhook_deliveries').insert(rows.slice(i, i + chunk))
      return rows.length
    },

    /**
     * Claims up to `limit` due deliveries for `leaseMs`: a claimed row is not due again until its lease runs out, so
     * a crashed worker's claims come back by themselves. MySQL: FOR UPDATE SKIP LOCKED lets instances claim side by
     * side. Answers the claimed ids.
     */
    async claim (token: string, now: number, leaseMs: number, limit: number, storeIds: string[] | null = null): Promise<number[]> {
      const due = (trx: Knex) => {
        const query = trx('webhook_deliveries').select('id').where({ status: 'pending' }).where('next_attempt_at', '<=', now)
        if (storeIds) query.whereIn('store_env_id', storeIds)
        return query.orderBy('next_attempt_at').orderBy('id').limit(limit)
      }
      const lease = { claim_token: token, next_attempt_at: now + leaseMs }
      if (!isMysql(db)) {
        // SQLite has one writer: one UPDATE … WHERE id IN (SELECT …) RETURNING id is atomic there, across processes too.
        const rows = await table().whereIn('id', due(db)).update(lease, ['id']) as Array<{ id: number }>
        return rows.map((r) => Number(r.id))
      }
      // READ COMMITTED: InnoDB then unlocks the rows the scan examined but did not match (another store's, for a
      // worker restricted to some stores), so SKIP LOCKED in another worker skips only rows really claimed.
      return db.transaction(async (trx): Promise<number[]> => {
        const ids = (await due(trx).forUpdate().skipLocked() as Array<{ id: number }>).map((r) => Number(r.id))
        if (ids.length > 0) await trx('webhook_deliveries').whereIn('id', ids).update(lease)
        return ids
      }, { isolationLevel: 'read committed' })
    },

    /** Whether a delivery is due and unclaimed: a plain read, which sees rows a claim skipped as locked. */
    async anyDue (now: number, storeIds: string[] | null = null): Promise<boolean> {
      const query = table().first('id').where({ status: 'pending' }).where('next_attempt_at', '<=', now)
      if (storeIds) query.whereIn('store_env_id', storeIds)
      return (await query) !== undefined
    },

    /** The deliveries of a claim, by their ids (the primary key: claim_token has no index of its own). */
    claimed (token: string, ids: number[]): Promise<ClaimedDelivery[]> {
      return db('webhook_deliveries as d')
        .join('webhook_subscriptions as s', 's.id', 'd.subscription_id')
        .join('events as e', 'e.id', 'd.event_id')
        .whereIn('d.id', ids)
        .where('d.claim_token', token)
        .orderBy('d.event_id')
        .select(
          'd.id',
          'd.org_id',
          'd.store_env_id',
          'd.subscription_id',
          'd.event_id',
          'd.attempts',
          's.url',
          's.kind',
          's.secret_sealed',
          's.status as subscription_status',
          's.consecutive_failures',
          'e.type as event_type',
          'e.data as event_data',
          'e.created_at as event_created_at',
          'e.seq as event_seq'
        )
    },

    /** Gives a claimed delivery back untouched (its lease was too short to start an attempt safely). */
    async release (id: number, token: string, now: number): Promise<void> {
      await table().where({ id, claim_token: token }).update({ claim_token: null, next_attempt_at: now })
    },

    /** Many successes in one transaction and three statements; a delivery whose claim was lost is left alone. */
    async succeededMany (records: AttemptRecord[]): Promise<void> {
      await retryOnDeadlock(db, async (trx) => {
        const held = trx('webhook_deliveries').select('id', 'claim_token').whereIn('id', records.map((a) => a.delivery.id))
        const tokens = new Map(
          (await (isMysql(db) ? held.forUpdate() : held) as Array<{ id: number, claim_token: string | null }>).map((
            r
          ) => [Number(r.id), r.claim_token])
        )
        const finished = records.filter((a) => tokens.get(Number(a.delivery.id)) === a.token)
        if (finished.length === 0) return
        const codes = finished.map((a) => `WHEN ${Number(a.delivery.id)} THEN ${Number(a.responseCode)}`).join(' ')
        await trx('webhook_deliveries').whereIn('id', finished.map((a) => a.delivery.id)).update({
          status: 'succeeded',
          claim_token: null,
          attempts: trx.raw('attempts + 1'),
          last_response_code: trx.raw(`CASE id ${codes} END`),
          last_error: null,
          completed_at: Math.max(...finished.map((a) => a.now))
        })
        await trx('webhook_attempts').insert(finished.map((a) => attemptRow(a, 'succeeded', null)))
        // Only a receiver that was failing has a counter to reset: the common path leaves the hot row alone.
        const recovered = [
          ...new Set(finished.filter((a) => Number(a.delivery.consecutive_failures) > 0).map((a) => a.delivery.subscription_id))
        ]
        if (recovered.length > 0) await trx('webhook_subscriptions').whereIn('id', recovered).update({ consecutive_failures: 0 })
      })
    },

    /** `nextAt` null: no retries left; the delivery is failed and the receiver disabled, with the reason shown. */
    async failed (a: AttemptRecord, nextAt: number | null, disableReason: string): Promise<void> {
      await retryOnDeadlock(db, async (trx) => {
        const changes = nextAt === null ? { status: 'failed', completed_at: a.now } : { status: 'pending', next_attempt_at: nextAt }
        if (!await finish(trx, a, changes)) return
        await recordAttempt(trx, a, nextAt === null ? 'failed' : 'retrying', nextAt)
        await trx('webhook_subscriptions').where({ id: a.delivery.subscription_id }).increment('consecutive_failures', 1)
        if (
          nextAt === null && await subscriptions.setStatus(a.delivery.subscription_id, 'disabled', ['active'], disableReason, a.now, trx)
        ) {
          await onStatusChange(trx, a.delivery.subscription_id)
        }
      })
    },

    /** A 410: the receiver asked to be forgotten. The subscription ends and its pending deliveries are cancelled. */
    async gone (a: AttemptRecord, endAs: SubscriptionStatus, reason: string): Promise<void> {
      await retryOnDeadlock(db, async (trx) => {
        if (!await finish(trx, a, { status: 'failed', completed_at: a.now })) return
        await recordAttempt(trx, a, 'failed', null)
        if (await subscriptions.setStatus(a.delivery.subscription_id, endAs, ['active', 'disabled'], reason, a.now, trx)) {
          await onStatusChange(trx, a.delivery.subscription_id)
        }
        // Found first, then changed by id: an UPDATE through the (subscription_id, id) index would lock every
        // delivery of the subscription's history it reads, and other workers' claims would wait on them.
        const pending = await trx('webhook_deliveries').where({ subscription_id: a.delivery.subscription_id, status: 'pending' }).whereNull(
          'claim_token'
        ).pluck('id')
        for (let i = 0; i < pending.length; i += 1000) {
          await trx('webhook_deliveries').whereIn('id', pending.slice(i, i + 1000)).where({ status: 'pending' }).whereNull('claim_token')
            .update({ status: 'cancelled', last_error: reason, completed_at: a.now })
        }
      })
    },

    /** The subscription stopped (retired, deleted, disabled) after the event was fanned out. */
    async cancel (id: number, token: string, reason: string, now: number): Promise<void> {
      await table().where({ id, claim_token: token }).update({
        claim_token: null,
        status: 'cancelled',
        last_error: reason,
        completed_at: now
      })
    },

    /** Newest first; `since`: only attempts made at or after it. */
    async listAttempts (storeId: string, subscriptionId: string, page: { offset: number, limit: number }, since: number | null = null) {
      const base = db('webhook_attempts').where({
        'webhook_attempts.store_env_id': storeId,
        'webhook_attempts.subscription_id': subscriptionId
      })
      if (since !== null) base.where('webhook_attempts.at', '>=', since)
      return countAndPage<any>(base, page, (q) => q.leftJoin('events as e', 'e.id', 'webhook_attempts.event_id')
        .select('webhook_attempts.*', 'e.type as event_type', 'e.seq as event_seq')
        .orderBy('webhook_attempts.id', 'desc'))
    },

    /** One delivery of a subscription (tenant ids explicit): redelivery starts from it. */
    findDelivery (
      storeId: string,
      subscriptionId: string,
      id: number
    ): Promise<{ id: number, org_id: string, event_id: number, event_seq: number, status: string } | undefined> {
      return table().join('events as e', 'e.id', 'webhook_deliveries.event_id')
        .where({
          'webhook_deliveries.id': id,
          'webhook_deliveries.store_env_id': storeId,
          'webhook_deliveries.subscription_id': subscriptionId
        })
        .first(
          'webhook_deliveries.id',
          'webhook_deliveries.org_id',
          'webhook_deliveries.event_id',
          'e.seq as event_seq',
          'webhook_deliveries.status'
        )
    },

    /**
     * Queues the given stored events again for one subscription, as new deliveries of the same event ids (receivers
     * de-duplicate on them); answers the new delivery ids. Redelivery and replay
     * (docs/contract/webhooks-and-delivery.md#webhook-operations).
     */
    async requeue (
      target: { orgId: string, storeEnvId: string, subscriptionId: string },
      eventIds: number[],
      now: number
    ): Promise<number[]> {
      const ids: number[] = []
      await db.transaction(async (trx) => {
        for (const eventId of eventIds) {
          const [id] = await trx('webhook_deliveries').insert({
            org_id: target.orgId,
            store_env_id: target.storeEnvId,
            subscription_id: target.subscriptionId,
            event_id: eventId,
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            created_at: now
          })
          ids.push(Number(id))
        }
      })
      return ids
    },

    /** The store's stored events in [since, until), oldest first, of `types` when given; at most `limit`. */
    eventsBetween (
      storeId: string,
      since: number,
      until: number,
      types: string[] | null,
      limit: number
    ): Promise<Array<{ id: number, seq: number, type: string }>> {
      const query = db('events').where({ store_env_id: storeId }).where('created_at', '>=', since).where('created_at', '<', until)
      if (types) query.whereIn('type', types)
      return query.orderBy('id').limit(limit).select('id', 'seq', 'type')
    },

    /** Deliveries not yet finished, for a subscription's summary. */
    async pendingCount (storeId: string, subscriptionId: string): Promise<number> {
      const [{ n }] = await table().where({ store_env_id: storeId, subscription_id: subscriptionId, status: 'pending' }).count<
        Array<{ n: number }>
      >({ n: '*' })
      return Number(n)
    }
  }
}
export type OutboxRepository = ReturnType<typeof outboxRepository>
