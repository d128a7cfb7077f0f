import type { FastifyInstance } from 'fastify'
import { accountRoutes } from './account.routes.js'
import { defineModule, type Services } from '../../lib/module.js'
import { accountService, type AccountService } from './account.service.js'
import { bootstrapService } from './bootstrap.service.js'
import { operatorService } from './operator.service.js'
import { peopleRepository, type PeopleRepository } from './people.repository.js'
import { storesRepository, type StoresRepository } from './stores.repository.js'

export { accountService, type AccountService } from './account.service.js'
export { bootstrapService } from './bootstrap.service.js'
export { operatorService } from './operator.service.js'
export { peopleRepository, type PeopleRepository, type Person } from './people.repository.js'
export { storesRepository, type StoresRepository } from './stores.repository.js'

export default async function account (app: FastifyInstance) {
  await app.register(accountRoutes, { service: app.services.account })
}

declare module '../../lib/module.js' {
  interface Services {
    people: PeopleRepository
    stores: StoresRepository
    bootstrap: ReturnType<typeof bootstrapService>
    operator: ReturnType<typeof operatorService>
    account: AccountService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { account: true }
}

/** The first-run seed's and the operator CLI's services act on the same things. */
function operatorDeps ({ db, people, stores, audit, apiKeys, clock, hash, freshness }: Services) {
  return { db, people, stores, audit, keys: apiKeys, clock, hash, fresh: freshness }
}

export const manifest = defineModule({
  name: 'account',
  resources: {
    account: { read: 'viewer', write: 'admin', area: 'Account', description: 'Members, the audit log and store allowed origins.' }
  },
  services: {
    people: ({ db }) => peopleRepository(db),
    stores: ({ db }) => storesRepository(db),
    bootstrap: (services) => bootstrapService(operatorDeps(services)),
    operator: (services) => operatorService(operatorDeps(services)),
    // Removing a member ends their OAuth connections (docs/contract/oauth.md#grants).
    account: ({ db, people, stores, audit, clock, freshness, connections, partners }) => accountService({
      db,
      people,
      stores,
      audit,
      clock,
      fresh: freshness,
      endPersonConnections: connections.endPersonConnections,
      clientStores: async (orgId) => (await partners.clientStores(orgId)).map((c) => c.store)
    })
  },
  routes: [{ plugin: account, prefix: '/v1' }]
})
