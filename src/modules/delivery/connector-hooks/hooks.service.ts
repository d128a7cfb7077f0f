import type { Knex } from 'knex'
import type { Precondition } from '../../../lib/conditional.js'
import { errors } from '../../../errors.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { envelope, toPage, type PageQuery } from '../../../lib/pagination.js'
import { actorOf, type Credential } from '../../../types.js'
import { isEventType, assertMayReadEvent } from '../../events/index.js'
import type { SubscriptionRow, SubscriptionsRepository } from '../subscriptions.repository.js'
import { newSubscription } from '../subscriptions.js'

interface Deps {
  subscriptions: SubscriptionsRepository
  clock: Clock
  secretKey: string
  allowPrivate: boolean
  /** Runs `work` in one database transaction (a deletion checked against If-Match). */
  transaction: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>
}

function present (row: SubscriptionRow) {
  return {
    id: row.id,
    targetUrl: row.url,
    event: (JSON.parse(row.events) as string[])[0],
    status: row.status === 'disabled' ? 'disabled' as const : 'active' as const,
    createdAt: iso(row.created_at)!
  }
}

/** REST hooks for automation platforms: subscriptions of kind `hook` on the shared delivery pipeline. */
export function hooksService ({ subscriptions, clock, secretKey, allowPrivate, transaction }: Deps) {
  return {
    async subscribe (credential: Credential, storeId: string, input: { targetUrl: string, event: string }) {
      if (!isEventType(input.event)) throw new errors.InvalidEventType(input.event)
      // A hook carries the event's data, so its creator must be allowed to read the event's resource
      // (docs/contract/event-visibility.md#subscriptions).
      assertMayReadEvent(credential, input.event)
      const { row, secret } = await newSubscription(
        {
          kind: 'hook',
          orgId: credential.orgId,
          storeId,
          url: input.targetUrl,
          events: [input.event],
          createdBy: actorOf(credential),
          now: clock()
        },
        secretKey,
        allowPrivate
      )
      await subscriptions.insert(row)
      return { ...present(row), secret }
    },

    async list (storeId: string, query: PageQuery & { targetUrl?: string }) {
      const page = toPage(query)
      const { total, rows } = await subscriptions.list(storeId, 'hook', { statuses: ['active', 'disabled'], url: query.targetUrl, ...page })
      return envelope(rows.map(present), total, page)
    },

    async get (storeId: string, id: string) {
      const row = await subscriptions.find(storeId, 'hook', id)
      if (!row || row.status === 'deleted') throw new errors.NotFound('Hook')
      return present(row)
    },

    /** Platforms retry unsubscribes, so deleting a deleted hook is a 204; an id this store never had is a 404. */
    /**
     * `precondition`: the request's If-Match, checked on the hook locked in the deletion's transaction; a deleted hook
     * has no representation left to match (GET answers 404), so it is a 404 then.
     */
    async unsubscribe (credential: Credential, storeId: string, id: string, precondition: Precondition | null = null): Promise<void> {
      const reason = `Deleted by ${actorOf(credential)}`
      if (!precondition) {
        const row = await subscriptions.find(storeId, 'hook', id)
        if (!row) throw new errors.NotFound('Hook')
        await subscriptions.setStatus(id, 'deleted', ['active', 'disabled'], reason, clock())
        return
      }
      await transaction(async (trx) => {
        const row = await subscriptions.find(storeId, 'hook', id, trx, true)
        if (!row || row.status === 'deleted') throw new errors.NotFound('Hook')
        precondition(present(row))
        await subscriptions.setStatus(id, 'deleted', ['active', 'disabled'], reason, clock(), trx)
      })
    }
  }
}
export type HooksService = ReturnType<typeof hooksService>
