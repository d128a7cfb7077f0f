import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailProvidersService } from './providers.service.js'
import * as schemas from './providers.schemas.js'

export const emailProvidersRoutes: FastifyPluginAsyncTypebox<{ service: EmailProvidersService }> = async (app, { service }) => {
  app.get('/email/providers/:provider', { schema: schemas.getProvider }, async (request) => {
    return service.get(request.store!.id, request.params.provider)
  })

  app.put(
    '/email/providers/:provider',
    { schema: schemas.putProvider, config: { errors: ['invalid_url', 'invalid_event_type'] } },
    async (request) => {
      return service.put(request.credential!, request.store!, request.params.provider, request.body)
    }
  )

  app.delete('/email/providers/:provider', { schema: schemas.deleteProvider }, async (request, reply) => {
    await service.remove(request.credential!, request.store!, request.params.provider)
    return reply.status(204).send(null)
  })

  app.get('/email/providers/:provider/deliveries', { schema: schemas.listProviderDeliveries }, async (request) => {
    return service.deliveries(request.store!.id, request.params.provider, request.query)
  })
}
