import type { FastifyInstance } from 'fastify'
import { accountService } from './account.service.js'
import { accountRoutes } from './account.routes.js'
import { peopleRepository } from './people.repository.js'

export default async function account (app: FastifyInstance) {
  const service = accountService({ db: app.db, people: peopleRepository(app.db), stores: app.stores, audit: app.audit, clock: app.clock })
  await app.register(accountRoutes, { service })
}
