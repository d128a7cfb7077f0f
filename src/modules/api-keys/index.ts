import type { FastifyInstance } from 'fastify'
import { apiKeysRepository } from './api-keys.repository.js'
import { apiKeysService } from './api-keys.service.js'
import { apiKeysRoutes } from './api-keys.routes.js'

/** API keys: creation, listing, revocation, and the `svc_` credential resolver of the auth pipeline. */
export default async function apiKeys (app: FastifyInstance) {
  const service = apiKeysService({ db: app.db, repo: apiKeysRepository(app.db), audit: app.audit, clock: app.clock })
  app.registerCredentialResolver((token, request) => service.authenticate(token, request.ip))
  await app.register(apiKeysRoutes, { service })
}
