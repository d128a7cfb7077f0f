import type { Precondition } from '../../../lib/conditional.js'
import type { Knex } from 'knex'
import { parseDateTime } from '../../../lib/formats.js'
import { errors } from '../../../errors.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { envelope, toPage, type PageQuery } from '../../../lib/pagination.js'
import { actorOf, type Credential } from '../../../types.js'
import type { OutboxRepository } from '../outbox.repository.js'
import type { SubscriptionRow, SubscriptionsRepository, SubscriptionStatus } from '../subscriptions.repository.js'
import { newSubscription } from '../subscriptions.js'
import {
  eventId, type EventsRepository, type NewEvent, isEventType, assertMayReadEvent, visibleEventTypes, type EventReader, eventsService
} from '../../events/index.js'

interface Deps {
  subscriptions: SubscriptionsRepository
  outbox: OutboxRepository
  events: EventsRepository
  clock: Clock
  secretKey: string
  allowPrivate: boolean
  /**
   * Runs `work` in one database transaction, in which the change and its event
   * (docs/contract/event-visibility.md#every-change-appends-an-event) commit.
   */
  transaction: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>
  /** Appends an event in the writer's transaction; the data never holds the signing secret. */
  appendEvent: (trx: Knex.Transaction, event: NewEvent) => Promise<unknown>
}

export interface CreateWebhookInput { url: string, events: string[], description?: string }

export interface AttemptRow {
  id: number,
  delivery_id: number,
  event_id: number,
  event_seq: number,
  event_type: string | null,
  attempt: number,
  outcome: 'succeeded' | 'retrying' | 'failed',
  response_code: number | null,
  duration_ms: number,
  error: string | null,
  next_retry_at: number | null,
  at: number
}

/**
 * The event of a webhook whose status the delivery worker changed: disabled after its last retry
 * (`outbound_webhook.updated`) or retired by a 410 (`outbound_webhook.deleted`). Connector hooks have none.
 */
export function announceWorkerChange (appendEvent: Deps['appendEvent']) {
  return async (trx: Knex.Transaction, subscriptionId: string): Promise<void> => {
    const row = await trx<SubscriptionRow>('webhook_subscriptions').where({ id: subscriptionId }).first()
    if (!row || row.kind !== 'webhook') return
    const type = row.status === 'disabled' ? 'outbound_webhook.updated' : 'outbound_webhook.deleted'
    await appendEvent(trx, { orgId: row.org_id, storeEnvId: row.store_env_id, type, data: presentWebhook(row) })
  }
}

export function presentWebhook (row: SubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: (row.status === 'deleted' ? 'retired' : row.status) as 'active' | 'disabled' | 'retired',
    statusReason: row.status_reason,
    statusChangedAt: iso(row.status_changed_at),
    consecutiveFailures: Number(row.consecutive_failures),
    createdAt: iso(row.created_at)!
  }
}

export function presentAttempt (row: AttemptRow) {
  return {
    id: `att_${row.id}`,
    deliveryId: `dlv_${row.delivery_id}`,
    eventId: eventId(row.event_seq),
    eventType: row.event_type,
    attempt: Number(row.attempt),
    status: row.outcome,
    responseCode: row.response_code == null ? null : Number(row.response_code),
    durationMs: Number(row.duration_ms),
    error: row.error,
    nextRetryAt: iso(row.next_retry_at),
    at: iso(row.at)!
  }
}

/** Wildcard alone, or known types without repeats (a typo would otherwise subscribe to nothing, silently). */
function checkEventList (events: string[]): string[] {
  const unique = [...new Set(events)]
  if (unique.includes('*')) {
    if (unique.length > 1) throw new errors.InvalidRequest('events: use ["*"] alone, or a list of event types')
    return unique
  }
  const unknown = unique.find((type) => !isEventType(type))
  if (unknown !== undefined) throw new errors.InvalidEventType(unknown)
  return unique
}

/**
 * docs/contract/event-visibility.md#subscriptions: a webhook carries only event types its creator may read. `["*"]` is
 * resolved now to the types it may read, and stored so (fixed at creation); it stays `["*"]` only for a creator that
 * may read every resource, so later event types still reach it.
 */
function authorizeEventList (creator: EventReader, events: string[]): string[] {
  if (events[0] !== '*') {
    for (const type of events) assertMayReadEvent(creator, type)
    return events
  }
  const readable = visibleEventTypes(creator)
  if (readable === undefined) return events
  if (readable.length === 0) throw new errors.InsufficientScope('read', 'the resource of any event (reviews, products, orders or loyalty)')
  return [...readable]
}

export function outboundWebhooksService (
  { subscriptions, outbox, events, clock, secretKey, allowPrivate, transaction, appendEvent }: Deps
) {
  async function find (storeId: string, id: string): Promise<SubscriptionRow> {
    const row = await subscriptions.find(storeId, 'webhook', id)
    if (!row) throw new errors.NotFound('Outbound webhook')
    return row
  }

  return {
    /** The same log as GET /events (docs/contract/event-visibility.md#the-event-log). */
    listEvents: eventsService({ events }).list,

    async create (credential: Credential, storeId: string, input: CreateWebhookInput) {
      const eventTypes = authorizeEventList(credential, checkEventList(input.events))
      const { row, secret } = await newSubscription(
        {
          kind: 'webhook',
          orgId: credential.orgId,
          storeId,
          url: input.url,
          events: eventTypes,
          description: input.description,
          createdBy: actorOf(credential),
          now: clock()
        },
        secretKey,
        allowPrivate
      )
      await transaction(async (trx) => {
        // The event first: the outbox fans it out to the store's webhooks as it is appended, and a webhook is not
        // sent the news of its own registration.
        await appendEvent(trx, {
          orgId: credential.orgId,
          storeEnvId: storeId,
          type: 'outbound_webhook.created',
          data: presentWebhook(row)
        })
        await subscriptions.insert(row, trx)
      })
      return { ...presentWebhook(row), secret }
    },

    async list (storeId: string, query: PageQuery & { status?: SubscriptionStatus, updatedSince?: string }) {
      const page = toPage(query)
      const statuses: SubscriptionStatus[] = query.status === 'retired'
        ? ['retired', 'deleted']
        : query.status
          ? [query.status]
          : ['active', 'disabled']
      const since = query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      const { total, rows } = await subscriptions.list(storeId, 'webhook', { statuses, since, ...page })
      return envelope(rows.map(presentWebhook), total, page)
    },

    async get (storeId: string, id: string) {
      return presentWebhook(await find(storeId, id))
    },

    /** `precondition`: the request's If-Match, checked on the webhook locked in the retirement's transaction. */
    async retire (credential: Credential, storeId: string, id: string, precondition: Precondition | null = null): Promise<void> {
      const row = await find(storeId, id)
      const reason = `Retired by ${actorOf(credential)}`
      const now = clock()
      await transaction(async (trx) => {
        if (precondition) {
          const current = await subscriptions.find(storeId, 'webhook', id, trx, true)
          if (!current) throw new errors.NotFound('Outbound webhook')
          precondition(presentWebhook(current))
        }
        // Retired first, so that the webhook is not sent its own retirement; retiring it twice appends nothing.
        if (!await subscriptions.setStatus(id, 'retired', ['active', 'disabled'], reason, now, trx)) return
        const retired = { ...row, status: 'retired' as const, status_reason: reason, status_changed_at: now }
        await appendEvent(trx, {
          orgId: credential.orgId,
          storeEnvId: storeId,
          type: 'outbound_webhook.deleted',
          data: presentWebhook(retired)
        })
      })
    },

    async deliveries (storeId: string, id: string, query: PageQuery & { updatedSince?: string }) {
      await find(storeId, id)
      const page = toPage(query)
      const { total, rows } = await outbox.listAttempts(
        storeId,
        id,
        page,
        query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      )
      return envelope((rows as AttemptRow[]).map(presentAttempt), total, page)
    }
  }
}
export type OutboundWebhooksService = ReturnType<typeof outboundWebhooksService>
