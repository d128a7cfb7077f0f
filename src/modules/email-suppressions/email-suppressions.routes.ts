import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailSuppressionsService } from './email-suppressions.service.js'
import * as schemas from './email-suppressions.schemas.js'

export const emailSuppressionsRoutes: FastifyPluginAsyncTypebox<{ service: EmailSuppressionsService }> = async (app, { service }) => {
  app.get('/email-suppressions', { schema: schemas.listSuppressions }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.post('/email-suppressions', { schema: schemas.addSuppression }, async (request, reply) => {
    const { suppression, created } = await service.add(request.store!, request.body)
    return reply.status(created ? 201 : 200).send(suppression)
  })

  app.delete('/email-suppressions/:email', { schema: schemas.removeSuppression }, async (request, reply) => {
    await service.remove(request.store!, request.params.email)
    return reply.status(204).send(null)
  })
}
