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

export { outboxRepository, type OutboxRepository } from './outbox.repository.js'
export { subscriptionsRepository, type SubscriptionsRepository } from './subscriptions.repository.js'
export { deliveryWorker, type WorkerOptions } from './worker.js'
export { deliveryWakeups } from './wakeups.js'
export { LEGACY_SIGNATURE_SUNSET, versioningUrl } from './sign.js'
export { PROVIDERS, type Provider } from './providers.js'
export { announceWorkerChange, outboundWebhooksService, type OutboundWebhooksService } from './outbound-webhooks/outbound-webhooks.service.js'
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
export function deliveryReactions (bus: DomainBus, { outbox, wakeups, clock }: { outbox: OutboxRepository, wakeups: DeliveryWakeups, clock: Clock }) {
  bus.on('events.appended', async (trx, { events }) => {
    const queued = await outbox.fanOut(trx, events.map((event) => ({ rowId: event.rowId, orgId: event.orgId, storeEnvId: event.storeEnvId, type: event.type })), clock())
    wakeups.committed(trx)
    if (queued > 0) wakeups.queued(trx)
  })
}

export const manifest = defineModule({
  name: 'delivery',
  routes: [
    { plugin: outboundWebhooks, prefix: '/v1' },
    { plugin: connectorHooks, prefix: '/v1' }
  ]
})
