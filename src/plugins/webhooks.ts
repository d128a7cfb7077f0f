import fp from 'fastify-plugin'
import { parseEventId } from '../modules/events/events.repository.js'
import { outboxRepository, type OutboxRepository } from '../delivery/outbox.repository.js'
import { subscriptionsRepository, type SubscriptionsRepository } from '../delivery/subscriptions.repository.js'
import { deliveryWorker, type DeliveryWorker, type WorkerOptions } from '../delivery/worker.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: {
      subscriptions: SubscriptionsRepository
      outbox: OutboxRepository
      /** A delivery worker on this app's database, clock and Redis; the caller starts and stops it. */
      createWorker: (options?: Partial<WorkerOptions>) => DeliveryWorker
    }
  }
}

/**
 * The delivery pipeline shared by outbound webhooks and connector hooks: every appended event fans out into the
 * outbox in the writer's own transaction; workers (started here when `config.workers`) deliver from it.
 */
export default fp(async (app) => {
  const subscriptions = subscriptionsRepository(app.db)
  const outbox = outboxRepository(app.db, subscriptions)
  const createWorker = (options: Partial<WorkerOptions> = {}) => deliveryWorker({
    outbox,
    clock: app.clock,
    secretKey: app.config.secretKey,
    publicUrl: app.config.publicUrl,
    allowPrivate: app.config.webhookAllowPrivate,
    redis: app.redis,
    redisPrefix: app.redisPrefix,
    log: app.log
  }, options)
  app.decorate('webhooks', { subscriptions, outbox, createWorker })

  app.events.onAppended(async (trx, event) => {
    await outbox.fanOut(trx, { seq: parseEventId(event.id)!, orgId: event.orgId, storeEnvId: event.storeEnvId, type: event.type }, app.clock())
  })

  if (app.config.workers) {
    const worker = createWorker()
    // Deliver as soon as the writer commits; a rolled-back write leaves nothing to deliver.
    app.events.onAppended(async (trx) => {
      trx.executionPromise.then(() => worker.nudge(), () => {})
    })
    app.addHook('onReady', async () => { worker.start() })
    app.addHook('onClose', async () => { await worker.stop() })
  }
}, { name: 'webhooks', dependencies: ['events', 'db', 'redis', 'config'] })
