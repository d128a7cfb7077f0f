import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { JWK } from 'jose'
import type { EvidenceService } from './evidence.service.js'
import * as schemas from './evidence.schemas.js'

interface Options { service: EvidenceService, signingKey: () => JWK }

/**
 * JSON that stays inert inside an HTML `<script>` element: a review's `</script>` or `<!--` would otherwise end the
 * element or change how the page parses it (stored script injection on the store's own page). Outside strings JSON
 * has none of these characters, so escaping them everywhere yields the same JSON value.
 */
const scriptSafe = (json: string) => json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

export const evidenceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { service, signingKey }) => {
  app.get('/evidence/products/:platformProductId', { schema: schemas.getEvidence }, async (request) => {
    return service.get(request.store!.id, request.params.platformProductId)
  })

  app.get('/evidence/products/:platformProductId/jsonld', {
    schema: schemas.getEvidenceJsonLd,
    onSend: async (_request, reply, payload) => (reply.statusCode === 200 && typeof payload === 'string' ? scriptSafe(payload) : payload)
  }, async (request) => {
    return service.jsonLd(request.store!.id, request.params.platformProductId)
  })

  app.post('/evidence/snapshots', { schema: schemas.createSnapshot }, async (request, reply) => {
    return reply.status(201).send(await service.snapshot(request.store!, request.body.platformProductId, signingKey()))
  })
}
