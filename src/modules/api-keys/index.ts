import type { FastifyInstance } from 'fastify'
import { apiKeysRoutes } from './api-keys.routes.js'
import { defineModule } from '../../lib/module.js'
import { apiKeysRepository } from './api-keys.repository.js'
import { apiKeysService, type ApiKeysService } from './api-keys.service.js'

export { apiKeysRepository } from './api-keys.repository.js'
export { apiKeysService, type ApiKeysService, type CreateKeyInput } from './api-keys.service.js'

/** API keys: creation, listing, revocation, and the `svc_` credential resolver of the auth pipeline. */
export default async function apiKeys (app: FastifyInstance) {
  const service = app.services.apiKeys
  app.registerCredentialResolver({ claim: async (token, request) => service.claim(token, request.ip) })
  await app.register(apiKeysRoutes, { service })
}

declare module '../../lib/module.js' {
  interface Services {
    apiKeysRepo: ReturnType<typeof apiKeysRepository>
    apiKeys: ApiKeysService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'api-keys': true }
}

export const manifest = defineModule({
  name: 'api-keys',
  resources: {
    'api-keys': { read: 'admin', write: 'admin', area: 'Account', description: 'API keys: list them; write creates and revokes keys.' }
  },
  services: {
    apiKeysRepo: ({ db }) => apiKeysRepository(db),
    apiKeys: ({ db, apiKeysRepo, audit, clock, freshness, log }) =>
      apiKeysService({ db, repo: apiKeysRepo, audit, clock, fresh: freshness, log })
  },
  routes: [{ plugin: apiKeys, prefix: '/v1' }]
})
