import type { FastifyInstance } from 'fastify'
import { loyaltyRoutes } from './loyalty.routes.js'

export { birthdayJob } from './birthdays.js'
export { loyaltyRepository } from './loyalty.repository.js'
export { loyaltyService, type LoyaltyService } from './loyalty.service.js'

/** Loyalty: settings, accounts with their ledger, transactions and referrals (the birthday job runs in src/jobs.ts). */
export default async function loyalty (app: FastifyInstance) {
  await app.register(loyaltyRoutes, { service: app.services.loyalty })
}
