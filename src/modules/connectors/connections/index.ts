import type { FastifyInstance } from 'fastify'
import type { ConnectionsService } from './connections.service.js'
import { connectionsRoutes } from './connections.routes.js'

/** /v1/connectors/connections and /v1/connectors/oauth-clients (resource `connectors`). */
export default async function connections (app: FastifyInstance, { service }: { service: ConnectionsService }) {
  await app.register(connectionsRoutes, { service })
}
