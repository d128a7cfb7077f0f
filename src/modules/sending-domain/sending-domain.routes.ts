import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { SendingDomainService } from './sending-domain.service.js'
import * as schemas from './sending-domain.schemas.js'

export const sendingDomainRoutes: FastifyPluginAsyncTypebox<{ service: SendingDomainService }> = async (app, { service }) => {
  app.get('/sending-domain', { schema: schemas.getDomain, config: { etag: true } }, async (request) => {
    return service.get(request.store!.id)
  })

  app.put('/sending-domain', { schema: schemas.putDomain }, async (request) => {
    return service.put(request.store!, request.body)
  })

  app.post('/sending-domain/verify', { schema: schemas.verifyDomain }, async (request) => {
    return service.verify(request.store!)
  })
}
