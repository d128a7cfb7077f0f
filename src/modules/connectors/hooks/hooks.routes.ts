import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { HooksService } from './hooks.service.js'
import * as schemas from './hooks.schemas.js'

export const hooksRoutes: FastifyPluginAsyncTypebox<{ service: HooksService }> = async (app, { service }) => {
  app.post('/connectors/hooks', { schema: schemas.subscribe, config: { plan: 'growth' } }, async (request, reply) => {
    const hook = await service.subscribe(request.credential!, request.store!.id, request.body)
    return reply.status(201).send(hook)
  })

  app.get('/connectors/hooks', { schema: schemas.listHooks }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/connectors/hooks/:id', { schema: schemas.getHook }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  app.delete('/connectors/hooks/:id', { schema: schemas.unsubscribe, config: { plan: 'growth' } }, async (request, reply) => {
    await service.unsubscribe(request.credential!, request.store!.id, request.params.id)
    return reply.status(204).send(null)
  })
}
