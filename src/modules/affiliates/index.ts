import type { FastifyInstance } from 'fastify'
import { affiliatesRoutes } from './affiliates.routes.js'

export { affiliatesRepository } from './affiliates.repository.js'
export { affiliatesService, type AffiliatesService } from './affiliates.service.js'

/** Affiliates, their referrals from orders carrying their code, and the USD rates of the 500 USD cap. */
export default async function affiliates (app: FastifyInstance) {
  await app.register(affiliatesRoutes, { service: app.services.affiliates })
}
