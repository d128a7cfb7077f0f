import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ReviewIncentivesService } from './review-incentives.service.js'
import * as schemas from './review-incentives.schemas.js'

export const reviewIncentivesRoutes: FastifyPluginAsyncTypebox<{ service: ReviewIncentivesService }> = async (app, { service }) => {
  app.post('/review-incentives', { schema: schemas.createIncentive }, async (request, reply) => {
    return reply.status(201).send(await service.create(request.store!, request.body))
  })

  app.get('/review-incentives', { schema: schemas.listIncentives }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/review-incentives/:id', { schema: schemas.getIncentive }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  const ifMatch = schemas.getIncentive.response[200]
  app.patch('/review-incentives/:id', { schema: schemas.updateIncentive, config: { ifMatch } }, async (request) => {
    return service.update(request.store!, request.params.id, request.body, request.precondition)
  })

  app.delete('/review-incentives/:id', { schema: schemas.deleteIncentive, config: { ifMatch } }, async (request, reply) => {
    await service.remove(request.store!, request.params.id, request.precondition)
    return reply.status(204).send(null)
  })

  app.post('/review-incentives/:id/codes', { schema: schemas.addCodes, config: { errors: ['conflict'] } }, async (request) => {
    return service.addCodes(request.store!, request.params.id, request.body.codes)
  })
}
