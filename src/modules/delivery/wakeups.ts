import type { Redis } from 'ioredis'
import type { Knex } from 'knex'
import { afterCommit } from '../../lib/freshness.js'

type Warn = (obj: object, msg: string) => void

export interface DeliveryWakeups {
  /** Deliveries were queued in `trx`: tell every worker once it commits (once per transaction). */
  queued: (trx: Knex) => void
  /** Events were appended in `trx`: wake this process's workers once it commits (once per transaction). */
  committed: (trx: Knex) => void
  /**
   * Calls `wake` whenever any process committed deliveries, or this one appended events; resolves to the function
   * that stops listening.
   */
  listen: (wake: () => void) => Promise<() => void>
}

/**
 * Tells delivery workers in other processes that deliveries were committed, over Redis pub/sub, so a worker run on
 * its own (`npm run worker`, web instances with WORKERS=false) starts on them at once instead of at its next poll.
 * A worker in the writer's own process is nudged directly, once the appending transaction commits (a rolled-back
 * write leaves nothing to deliver); without Redis there is no other process to tell. A lost message costs only
 * latency: workers still poll.
 */
export function deliveryWakeups (redis: Redis | null, prefix: string, warn: Warn): DeliveryWakeups {
  const channel = `${prefix}deliveries:committed`
  const told = new WeakSet<Knex>()
  const nudged = new WeakSet<Knex>()
  const local = new Set<() => void>()
  return {
    queued (trx) {
      if (!redis || told.has(trx)) return
      told.add(trx)
      afterCommit(trx, async () => { await redis.publish(channel, '') })
    },

    committed (trx) {
      if (nudged.has(trx)) return
      nudged.add(trx)
      afterCommit(trx, async () => { for (const wake of local) wake() })
    },

    async listen (wake) {
      local.add(wake)
      if (!redis) return () => { local.delete(wake) }
      // A subscribed connection can send nothing else, so it is a connection of its own; ioredis subscribes it
      // again after a reconnect.
      const subscriber = redis.duplicate()
      subscriber.on('error', (err: Error) => warn({ err: { message: err.message } }, 'redis subscriber error'))
      subscriber.on('message', () => wake())
      try {
        await subscriber.connect()
        await subscriber.subscribe(channel)
      } catch (err) {
        warn({ err: { message: (err as Error).message } }, 'delivery wake-ups unavailable; the worker polls')
      }
      return () => {
        local.delete(wake)
        subscriber.disconnect()
      }
    }
  }
}
