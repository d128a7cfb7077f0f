import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../lib/marked-cache.js'
import type { ReviewsService } from './reviews.service.js'
import * as schemas from './reviews.schemas.js'

/** GET /reviews needs a credential; POST /reviews is the storefront form: same URL, per-method route config. */
export const reviewsRoutes: FastifyPluginAsyncTypebox<{ service: ReviewsService }> = async (app, { service }) => {
  app.get('/reviews', { schema: schemas.listReviews, config: { keptUnder: 'reviews' } }, async (request, reply) => {
    return sendKept(reply as FastifyReply, await service.list(request.store!.id, request.query, request.keptSeen))
  })

  app.get('/reviews/:id', { schema: schemas.getReview }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  const ifMatch = schemas.getReview.response[200]
  app.patch('/reviews/:id', { schema: schemas.updateReview, config: { ifMatch } }, async (request) => {
    return service.update(request.store!, request.params.id, request.body, request.precondition)
  })

  app.delete('/reviews/:id', { schema: schemas.deleteReview, config: { ifMatch } }, async (request, reply) => {
    await service.remove(request.store!, request.params.id, request.precondition)
    return reply.status(204).send(null)
  })

  app.post(
    '/reviews',
    { schema: schemas.submitReview, config: { auth: 'storefront', storefrontLimit: 'reviews.create' } },
    async (request, reply) => {
      return reply.status(201).send(await service.submit(request.store!, request.body))
    }
  )

  app.post(
    '/reviews/:id/helpful',
    { schema: schemas.markHelpful, config: { auth: 'storefront', storefrontLimit: 'reviews.helpful' } },
    async (request) => {
      return service.helpful(request.store!, request.params.id, request.ip)
    }
  )
}
