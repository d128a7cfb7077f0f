import type { FastifyInstance } from 'fastify'
import { evidenceRoutes } from './evidence.routes.js'
import { ID_TOKEN_ALG } from '../../../oauth/keys.js'
import { defineModule } from '../../lib/module.js'
import { evidenceRepository } from './evidence.repository.js'
import { evidenceService, type EvidenceService } from './evidence.service.js'

export { evidenceRepository } from './evidence.repository.js'
export { evidenceService, type EvidenceService } from './evidence.service.js'

/**
 * Customer evidence per product. Snapshots are signed RS256, as the contract says, with the provider's newest RSA key
 * (the one its ID tokens use), published at /oauth/jwks (oauth/index.ts decorates the keys), so registered after the
 * oauth plugin.
 */
export default async function evidence (app: FastifyInstance) {
  await app.register(evidenceRoutes, {
    service: app.services.evidence,
    signingKey: () => app.oidcSigningKeys.find((key) => key.alg === ID_TOKEN_ALG)!
  })
}

declare module '../../lib/module.js' {
  interface Services {
    evidenceRepo: ReturnType<typeof evidenceRepository>
    evidence: EvidenceService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { evidence: true }
}

export const manifest = defineModule({
  name: 'evidence',
  resources: {
    evidence: { read: 'viewer', write: 'editor', area: 'Insight', description: 'Store evidence: trust badges and proof of reviews.' }
  },
  services: {
    evidenceRepo: ({ db }) => evidenceRepository(db),
    evidence: ({ db, evidenceRepo, productsRepo, galleries, events, clock, config }) => evidenceService({
      repo: evidenceRepo,
      products: productsRepo,
      clock,
      issuer: `${config.publicUrl}/oauth`,
      galleryPhotos: galleries.productPhotos,
      record: async (event) => { await db.transaction((trx) => events.append(trx, event)) }
    })
  },
  routes: [{ plugin: evidence, prefix: '/v1' }]
})
