import type { FastifyInstance } from 'fastify'
import { accountRoutes } from './account.routes.js'

export default async function account (app: FastifyInstance) {
  await app.register(accountRoutes, { service: app.services.account })
}
