import type { FastifyInstance } from 'fastify'
import { evidenceRoutes } from './evidence.routes.js'

/**
 * Customer evidence per product. Snapshots are signed with the key the OIDC provider signs with and publishes at
 * /oauth/jwks (oauth/index.ts decorates it), so registered after the oauth plugin.
 */
export default async function evidence (app: FastifyInstance) {
  await app.register(evidenceRoutes, { service: app.services.evidence, signingKey: () => app.oidcSigningKeys[0] })
}
