import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { JWK } from 'jose'
import type { EvidenceService } from './evidence.service.js'
import * as schemas from './evidence.schemas.js'

interface Options { service: EvidenceService, signingKey: () => JWK }

export const evidenceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { service, signingKey }) => {
  app.get('/evidence/products/:platformProductId', { schema: schemas.getEvidence }, async (request) => {
    return service.get(request.store!.id, request.params.platformProductId)
  })

  app.get('/evidence/products/:platformProductId/jsonld', { schema: schemas.getEvidenceJsonLd }, async (request) => {
    return service.jsonLd(request.store!.id, request.params.platformProductId)
  })

  app.post('/evidence/snapshots', { schema: schemas.createSnapshot }, async (request, reply) => {
    return reply.status(201).send(await service.snapshot(request.store!, request.body.platformProductId, signingKey()))
  })
}
