import type { FastifyInstance } from 'fastify'
import { triggersRoutes } from './triggers.routes.js'

/** The connector layer's read side: `/connectors/me`, the trigger catalogue and polling (decisions.md section 9). */
export default async function connectorTriggers (app: FastifyInstance) {
  await app.register(triggersRoutes, { service: app.services.connectorTriggers })
}
