import type { FastifyInstance } from 'fastify'
import { accountService } from './account.service.js'
import { accountRoutes } from './account.routes.js'
import { peopleRepository } from './people.repository.js'
import { connectionsService } from '../../../oauth/connections/connections.service.js'
import { grantsRepository } from '../../../oauth/grants.js'
import { oauthClients } from '../../../oauth/clients.js'

export default async function account (app: FastifyInstance) {
  const { db, clock, audit } = app
  // Removing a member ends their OAuth connections (decisions.md section 10).
  const connections = connectionsService({ db, grants: grantsRepository(db), clients: oauthClients(db, clock), audit, clock })
  const service = accountService({ db, people: peopleRepository(db), stores: app.stores, audit, clock, endPersonConnections: connections.endPersonConnections })
  await app.register(accountRoutes, { service })
}
