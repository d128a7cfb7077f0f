import type { Knex } from 'knex'
import { errors } from '../../../errors.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { toMs } from '../../../lib/formats.js'
import { actorOf, type Credential } from '../../../types.js'
import type { OutboxRepository } from '../outbox.repository.js'
import { matchesEvent, type SubscriptionRow, type SubscriptionsRepository } from '../subscriptions.repository.js'
import type { AuditEntry } from '../../audit/index.js'
import { eventId, type NewEvent, isEventType } from '../../events/index.js'
import { presentWebhook } from './outbound-webhooks.service.js'

interface Deps {
  subscriptions: SubscriptionsRepository
  outbox: OutboxRepository
  audit: { record: (entry: AuditEntry) => Promise<void> }
  clock: Clock
  transaction: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>
  /**
   * Appends the change's event in the writer's transaction (docs/contract/webhooks-and-delivery.md#webhook-operations).
   */
  appendEvent: (trx: Knex.Transaction, event: NewEvent) => Promise<unknown>
}

/** A replay queues at most this many events; a wider outage is replayed in several ranges (docs/webhooks.md). */
export const MAX_REPLAY = 5000

export interface ReplayInput { since: string, until?: string, types?: string[] }

/**
 * Recovering a receiver (docs/contract/webhooks-and-delivery.md#webhook-operations): redeliver one delivery, replay a
 * time range of stored events, re-enable a disabled webhook. Re-sent events keep their ids, so receivers de-duplicate;
 * every operation is in the organization's audit log.
 */
export function webhookOperations ({ subscriptions, outbox, audit, clock, transaction, appendEvent }: Deps) {
  async function live (storeId: string, id: string): Promise<SubscriptionRow> {
    const row = await subscriptions.find(storeId, 'webhook', id)
    if (!row) throw new errors.NotFound('Outbound webhook')
    if (row.status === 'retired' || row.status === 'deleted') throw new errors.Conflict('The webhook is retired: register a new one')
    return row
  }

  function mustBeActive (row: SubscriptionRow) {
    if (row.status !== 'active') throw new errors.Conflict('The webhook is disabled: enable it first (POST /outbound-webhooks/{id}/enable)')
  }

  const record = (credential: Credential, action: string, row: SubscriptionRow, ip: string | null, details: Record<string, unknown>) =>
    audit.record({ orgId: row.org_id, action, actor: actorOf(credential), subject: `outbound_webhook:${row.id}`, ip, details })

  return {
    async redeliver (credential: Credential, storeId: string, id: string, deliveryId: string, ip: string | null) {
      const row = await live(storeId, id)
      const number = /^dlv_(\d{1,15})$/.exec(deliveryId)?.[1]
      const delivery = number ? await outbox.findDelivery(storeId, row.id, Number(number)) : undefined
      if (!delivery) throw new errors.NotFound('Delivery')
      mustBeActive(row)
      const [queued] = await outbox.requeue(
        { orgId: row.org_id, storeEnvId: storeId, subscriptionId: row.id },
        [Number(delivery.event_id)],
        clock()
      )
      await record(credential, 'outbound_webhook.redelivered', row, ip, { deliveryId, eventId: eventId(delivery.event_seq) })
      return { deliveryId: `dlv_${queued}`, eventId: eventId(delivery.event_seq) }
    },

    async replay (credential: Credential, storeId: string, id: string, input: ReplayInput, ip: string | null) {
      const row = await live(storeId, id)
      mustBeActive(row)
      const since = toMs(input.since)
      const now = clock()
      const until = input.until === undefined ? now : toMs(input.until)
      // The API's schema checks the dates; the admin form's come here as typed.
      if (since === null || until === null) throw new errors.InvalidRequest('since and until: ISO 8601 dates within 1970-9999')
      if (until <= since) throw new errors.InvalidRequest('until: must be after since')
      const unknown = input.types?.find((type) => !isEventType(type))
      if (unknown !== undefined) throw new errors.InvalidEventType(unknown)
      const subscribed = JSON.parse(row.events) as string[]
      const found = await outbox.eventsBetween(storeId, since, until, input.types?.length ? input.types : null, MAX_REPLAY + 1)
      if (found.length > MAX_REPLAY) {
        throw new errors.InvalidRequest(`The range holds more than ${MAX_REPLAY} events: replay it in shorter ranges`)
      }
      // Only what the webhook subscribes to (its list was bounded by its creator's read scopes at creation).
      const events = found.filter((event) => matchesEvent(subscribed, event.type))
      await outbox.requeue({ orgId: row.org_id, storeEnvId: storeId, subscriptionId: row.id }, events.map((event) => Number(event.id)), now)
      const summary = {
        queued: events.length,
        since: iso(since)!,
        until: iso(until)!,
        firstEventId: events[0] ? eventId(events[0].seq) : null,
        lastEventId: events.length ? eventId(events[events.length - 1].seq) : null
      }
      await record(credential, 'outbound_webhook.replayed', row, ip, { ...summary, types: input.types ?? null })
      return summary
    },

    async enable (credential: Credential, storeId: string, id: string, ip: string | null) {
      const row = await live(storeId, id)
      if (row.status === 'disabled') {
        const now = clock()
        await transaction(async (trx) => {
          if (!await subscriptions.lockDisabled(row.id, trx)) return
          // The event while the webhook is still disabled: the outbox fans it out to the store's active webhooks as it
          // is appended, and a webhook is not sent the news of its own change.
          const enabled = {
            ...row,
            status: 'active' as const,
            status_reason: 'Enabled again',
            status_changed_at: now,
            consecutive_failures: 0
          }
          await appendEvent(trx, {
            orgId: row.org_id,
            storeEnvId: storeId,
            type: 'outbound_webhook.updated',
            data: presentWebhook(enabled)
          })
          await subscriptions.enable(row.id, now, trx)
        })
        await record(credential, 'outbound_webhook.enabled', row, ip, { reason: row.status_reason })
      }
      return presentWebhook((await subscriptions.find(storeId, 'webhook', id))!)
    }
  }
}
export type WebhookOperations = ReturnType<typeof webhookOperations>
