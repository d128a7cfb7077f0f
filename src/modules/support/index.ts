import type { FastifyInstance } from 'fastify'
import { supportRoutes } from './support.routes.js'

/** Support requests with their context, mailed to SUPPORT_EMAIL (decisions.md section 15 `support`). */
export default async function support (app: FastifyInstance) {
  await app.register(supportRoutes, { service: app.services.support })
}
