/**
 * The connector layer: OAuth connections and registered clients (/v1/connectors/connections, /oauth-clients), the
 * read side automation platforms poll (/v1/connectors/me, the trigger catalogue, polling), and the event ->
 * automation item mapping. Its REST hooks are delivered with the rest (modules/delivery).
 */
import type { FastifyInstance } from 'fastify'
import { connectionsRoutes } from './connections/connections.routes.js'
import { triggersRoutes } from './triggers/triggers.routes.js'
import { toItem } from './items.js'
import { defineModule } from '../../lib/module.js'
import { connectionsService, type ConnectionsService } from './connections/connections.service.js'
import { grantsRepository, type GrantsRepository } from './connections/grants.repository.js'
import { oauthClients, type OauthClients } from './connections/oauth-clients.repository.js'
import { triggersRepository } from './triggers/triggers.repository.js'
import { triggersService } from './triggers/triggers.service.js'

export { connectionsService, type ConnectionsService } from './connections/connections.service.js'
export {
  entitles,
  type GrantChoice,
  grantsRepository,
  type GrantsRepository,
  type LiveGrant,
  type ProviderGrant,
  type RefreshTokenRow
} from './connections/grants.repository.js'
export { compareClientSecret, oauthClients, type OauthClients } from './connections/oauth-clients.repository.js'
export { toItem } from './items.js'
export { triggersRepository } from './triggers/triggers.repository.js'
export { triggersService } from './triggers/triggers.service.js'

/** /v1/connectors/connections and /v1/connectors/oauth-clients (resource `connectors`). */
export async function connectorConnections (app: FastifyInstance) {
  await app.register(connectionsRoutes, { service: app.services.connections })
}

/**
 * The connector layer's read side: `/connectors/me`, the trigger catalogue and polling
 * (docs/contract/connectors.md#triggers-and-polling).
 */
export async function connectorTriggers (app: FastifyInstance) {
  await app.register(triggersRoutes, { service: app.services.connectorTriggers })
}

declare module '../../lib/module.js' {
  interface Services {
    grants: GrantsRepository
    clients: OauthClients
    triggersRepo: ReturnType<typeof triggersRepository>
    connectorTriggers: ReturnType<typeof triggersService>
    connections: ConnectionsService
    /** What a connector REST hook is sent for one event: the same item a poll of its trigger returns. */
    hookItem: typeof toItem
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { connectors: true }
}

export const manifest = defineModule({
  name: 'connectors',
  resources: {
    connectors: {
      read: 'viewer',
      write: 'editor',
      area: 'Events & integrations',
      description: 'OAuth connections and OAuth clients of automation platforms.'
    }
  },
  services: {
    hookItem: () => toItem,
    grants: ({ db }) => grantsRepository(db),
    clients: ({ db, clock }) => oauthClients(db, clock),
    triggersRepo: ({ db }) => triggersRepository(db),
    connectorTriggers: ({ triggersRepo, people }) => triggersService({ repo: triggersRepo, people }),
    connections: ({ db, grants, clients, audit, clock, freshness, subscriptions }) =>
      connectionsService({ db, grants, clients, audit, clock, fresh: freshness, subscriptions })
  },
  routes: [
    { plugin: connectorConnections, prefix: '/v1' },
    { plugin: connectorTriggers, prefix: '/v1' }
  ]
})
