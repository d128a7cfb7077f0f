import type { FastifyInstance } from 'fastify'
import { accountRoutes } from './account.routes.js'
import { defineModule } from '../../lib/module.js'

export { accountService, type AccountService } from './account.service.js'
export { bootstrapService } from './bootstrap.service.js'
export { operatorService } from './operator.service.js'
export { peopleRepository, type PeopleRepository, type Person } from './people.repository.js'
export { storesRepository, type StoresRepository } from './stores.repository.js'

export default async function account (app: FastifyInstance) {
  await app.register(accountRoutes, { service: app.services.account })
}

export const manifest = defineModule({ name: 'account', routes: [{ plugin: account, prefix: '/v1' }] })
