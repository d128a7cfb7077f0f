import type { FastifyInstance } from 'fastify'
import { sendingDomainRoutes } from './sending-domain.routes.js'

/** A store's own DKIM-signed sending domain (decisions.md section 15 "Email"). */
export default async function sendingDomain (app: FastifyInstance) {
  await app.register(sendingDomainRoutes, { service: app.services.sendingDomain })
}
