import type { FastifyInstance } from 'fastify'
import { affiliatesRoutes } from './affiliates.routes.js'

/** Affiliates, their referrals from orders carrying their code, and the USD rates of the 500 USD cap. */
export default async function affiliates (app: FastifyInstance) {
  await app.register(affiliatesRoutes, { service: app.services.affiliates })
}
