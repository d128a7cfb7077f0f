import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { SupportService } from './support.service.js'
import * as schemas from './support.schemas.js'

export const supportRoutes: FastifyPluginAsyncTypebox<{ service: SupportService }> = async (app, { service }) => {
  app.post('/support/requests', { schema: schemas.createRequest }, async (request, reply) => {
    return reply.status(201).send(await service.create(request.credential!, request.store!, request.body))
  })

  app.get('/support/requests', { schema: schemas.listRequests }, async (request) => service.list(request.store!, request.query))
}
