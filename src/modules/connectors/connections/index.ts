import type { FastifyInstance } from 'fastify'
import { connectionsRoutes } from './connections.routes.js'

/** /v1/connectors/connections and /v1/connectors/oauth-clients (resource `connectors`). */
export default async function connections (app: FastifyInstance) {
  await app.register(connectionsRoutes, { service: app.services.connections })
}
