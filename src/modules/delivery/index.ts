/**
 * Delivery: everything that sends a store's events out, behind this one face. Appended events fan out into the
 * durable outbox in the writer's transaction; the worker claims, signs, sends and retries them for the three kinds
 * of subscriber: outbound webhooks (/v1/outbound-webhooks), connector REST hooks (/v1/connectors/hooks) and email
 * providers (/v1/email/providers). Other modules import from here only.
 */
import type { FastifyInstance } from 'fastify'
import { deprecationHeaders } from './sign.js'
import { outboundWebhooksRoutes } from './outbound-webhooks/outbound-webhooks.routes.js'
import { operationsRoutes } from './outbound-webhooks/operations.routes.js'
import { hooksRoutes } from './connector-hooks/hooks.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { Clock } from '../../lib/clock.js'
import type { OutboxRepository } from './outbox.repository.js'
import type { DeliveryWakeups } from './wakeups.js'
import { defineModule } from '../../lib/module.js'
import {
  announceWorkerChange,
  outboundWebhooksService,
  type OutboundWebhooksService
} from './outbound-webhooks/outbound-webhooks.service.js'
import { webhookOperations, type WebhookOperations } from './outbound-webhooks/operations.service.js'
import { hooksService } from './connector-hooks/hooks.service.js'
import { emailProvidersService, type EmailProvidersService } from './email-providers/providers.service.js'
import { outboxRepository } from './outbox.repository.js'
import { subscriptionsRepository, type SubscriptionsRepository } from './subscriptions.repository.js'
import { deliveryWorker, type WorkerOptions } from './worker.js'
import { deliveryWakeups } from './wakeups.js'

export { outboxRepository, type OutboxRepository } from './outbox.repository.js'
export { subscriptionsRepository, type SubscriptionsRepository } from './subscriptions.repository.js'
export { deliveryWorker, type WorkerOptions } from './worker.js'
export { deliveryWakeups } from './wakeups.js'
export { LEGACY_SIGNATURE_SUNSET, versioningUrl } from './sign.js'
export { PROVIDERS, type Provider } from './providers.js'
export {
  announceWorkerChange,
  outboundWebhooksService,
  type OutboundWebhooksService
} from './outbound-webhooks/outbound-webhooks.service.js'
export { webhookOperations, type WebhookOperations } from './outbound-webhooks/operations.service.js'
export { hooksService } from './connector-hooks/hooks.service.js'
export { DEFAULT_PROVIDER_EVENTS, emailProvidersService, type EmailProvidersService } from './email-providers/providers.service.js'
export { emailProvidersRoutes } from './email-providers/providers.routes.js'

/**
 * Outbound webhooks and their operations (docs/contract/webhooks-and-delivery.md#outbound-webhooks,
 * docs/contract/event-visibility.md#the-event-log). Until the body-only signature's sunset every response here carries
 * its deprecation headers (docs/changelog.md#versioning-policy).
 */
export async function outboundWebhooks (app: FastifyInstance) {
  app.addHook('onSend', async (request, reply) => {
    reply.headers(deprecationHeaders(app.clock(), app.config.publicUrl))
  })
  await app.register(outboundWebhooksRoutes, { service: app.services.outboundWebhooks })
  await app.register(operationsRoutes, { service: app.services.webhookOperations })
}

/** REST hooks under /v1/connectors/hooks (docs/contract/connectors.md#rest-hooks), delivered by the same worker. */
export async function connectorHooks (app: FastifyInstance) {
  await app.register(hooksRoutes, { service: app.services.connectorHooks })
}

/**
 * Every appended event fans out into the outbox in the writer's own transaction
 * (docs/contract/webhooks-and-delivery.md#delivery); once that commits, this process's worker is nudged and, when
 * deliveries were queued, workers elsewhere hear of it.
 */
export function deliveryReactions (
  bus: DomainBus,
  { outbox, wakeups, clock }: { outbox: OutboxRepository, wakeups: DeliveryWakeups, clock: Clock }
) {
  bus.on('events.appended', async (trx, { events }) => {
    const queued = await outbox.fanOut(
      trx,
      events.map((event) => ({ rowId: event.rowId, orgId: event.orgId, storeEnvId: event.storeEnvId, type: event.type })),
      clock()
    )
    wakeups.committed(trx)
    if (queued > 0) wakeups.queued(trx)
  })
}

declare module '../../lib/module.js' {
  interface Services {
    subscriptions: SubscriptionsRepository
    outbox: OutboxRepository
    outboundWebhooks: OutboundWebhooksService
    connectorHooks: ReturnType<typeof hooksService>
    emailProviders: EmailProvidersService
    webhookOperations: WebhookOperations
    wakeups: DeliveryWakeups
    /** The delivery pipeline shared by outbound webhooks, connector hooks and email providers; jobs and tests start workers from it. */
    delivery: {
      subscriptions: SubscriptionsRepository
      outbox: OutboxRepository
      createWorker: (options?: Partial<WorkerOptions>) => ReturnType<typeof deliveryWorker>
    }
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'outbound-webhooks': true }
}

export const manifest = defineModule({
  name: 'delivery',
  resources: {
    'outbound-webhooks': {
      read: 'viewer',
      write: 'editor',
      area: 'Events & integrations',
      description: 'Outbound webhooks: register, list, retire, see deliveries.'
    }
  },
  services: {
    subscriptions: ({ db }) => subscriptionsRepository(db),
    outbox: ({ db, subscriptions, events }) =>
      outboxRepository(db, subscriptions, announceWorkerChange((trx, event) => events.append(trx, event))),
    outboundWebhooks: ({ db, subscriptions, outbox, eventHistory, events, clock, config }) =>
      outboundWebhooksService({
        subscriptions,
        outbox,
        events: eventHistory,
        clock,
        secretKey: config.secretKey,
        allowPrivate: config.webhookAllowPrivate,
        transaction: (work) => db.transaction(work),
        appendEvent: events.append
      }),
    connectorHooks: ({ db, subscriptions, clock, config }) =>
      hooksService({
        subscriptions,
        clock,
        secretKey: config.secretKey,
        allowPrivate: config.webhookAllowPrivate,
        transaction: (work) => db.transaction(work)
      }),
    emailProviders: ({ db, outbox, events, clock, config }) =>
      emailProvidersService({ db, outbox, events, clock, secretKey: config.secretKey, allowPrivate: config.webhookAllowPrivate }),
    webhookOperations: ({ db, subscriptions, outbox, audit, clock, events }) =>
      webhookOperations({ subscriptions, outbox, audit, clock, transaction: (work) => db.transaction(work), appendEvent: events.append }),
    wakeups: ({ redis, redisPrefix, log }) => deliveryWakeups(redis, redisPrefix, (obj, msg) => log.warn(obj, msg)),
    delivery: ({ subscriptions, outbox, clock, config, redis, redisPrefix, log, wakeups, features, hookItem }) => ({
      subscriptions,
      outbox,
      createWorker: (options = {}) =>
        deliveryWorker({
          outbox,
          clock,
          secretKey: config.secretKey,
          publicUrl: config.publicUrl,
          allowPrivate: config.webhookAllowPrivate,
          redis,
          redisPrefix,
          log,
          hookItem,
          wakeups,
          // A subscription whose kind the store's plan no longer includes is not sent to (docs/contract/plans-and-limits.md).
          entitled: (storeId, kind) => features.includes(storeId, kind === 'webhook' ? 'outbound-webhooks' : 'connector-hooks')
        }, options)
    })
  },
  reactions: deliveryReactions,
  routes: [
    { plugin: outboundWebhooks, prefix: '/v1' },
    { plugin: connectorHooks, prefix: '/v1' }
  ]
})
