import type { FastifyInstance } from 'fastify'
import { evidenceRoutes } from './evidence.routes.js'
import { ID_TOKEN_ALG } from '../../../oauth/keys.js'
import { defineModule } from '../../lib/module.js'

export { evidenceRepository } from './evidence.repository.js'
export { evidenceService, type EvidenceService } from './evidence.service.js'

/**
 * Customer evidence per product. Snapshots are signed RS256, as the contract says, with the provider's newest RSA key
 * (the one its ID tokens use), published at /oauth/jwks (oauth/index.ts decorates the keys), so registered after the
 * oauth plugin.
 */
export default async function evidence (app: FastifyInstance) {
  await app.register(evidenceRoutes, { service: app.services.evidence, signingKey: () => app.oidcSigningKeys.find((key) => key.alg === ID_TOKEN_ALG)! })
}

export const manifest = defineModule({ name: 'evidence', routes: [{ plugin: evidence, prefix: '/v1' }] })
