import type { FastifyInstance } from 'fastify'
import { apiKeysRoutes } from './api-keys.routes.js'
import { defineModule } from '../../lib/module.js'

export { apiKeysRepository } from './api-keys.repository.js'
export { apiKeysService, type ApiKeysService, type CreateKeyInput } from './api-keys.service.js'

/** API keys: creation, listing, revocation, and the `svc_` credential resolver of the auth pipeline. */
export default async function apiKeys (app: FastifyInstance) {
  const service = app.services.apiKeys
  app.registerCredentialResolver({ claim: async (token, request) => service.claim(token, request.ip) })
  await app.register(apiKeysRoutes, { service })
}

export const manifest = defineModule({ name: 'api-keys', routes: [{ plugin: apiKeys, prefix: '/v1' }] })
