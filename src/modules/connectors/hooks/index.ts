import type { FastifyInstance } from 'fastify'
import { hooksService } from './hooks.service.js'
import { hooksRoutes } from './hooks.routes.js'

/** REST hooks under /v1/connectors/hooks (decisions.md section 9), delivered by the shared webhook pipeline. */
export default async function connectorHooks (app: FastifyInstance) {
  const service = hooksService({
    subscriptions: app.webhooks.subscriptions,
    clock: app.clock,
    secretKey: app.config.secretKey,
    allowPrivate: app.config.webhookAllowPrivate
  })
  await app.register(hooksRoutes, { service })
}
