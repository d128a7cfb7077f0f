import type { FastifyInstance } from 'fastify'
import { hooksRoutes } from './hooks.routes.js'

/** REST hooks under /v1/connectors/hooks (decisions.md section 9), delivered by the shared delivery pipeline. */
export default async function connectorHooks (app: FastifyInstance) {
  await app.register(hooksRoutes, { service: app.services.connectorHooks })
}
