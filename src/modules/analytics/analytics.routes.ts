import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AnalyticsService } from './analytics.service.js'
import * as schemas from './analytics.schemas.js'

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ service: AnalyticsService }> = async (app, { service }) => {
  // A kept series (analytics.service.ts) is the same object on each read: its JSON is made once, not per request.
  const serialized = new WeakMap<object, string>()
  app.get('/analytics/reviews', { schema: schemas.reviewAnalytics }, async (request, reply) => {
    const series = await service.reviews(request.store!.id, request.query)
    let body = serialized.get(series)
    if (body === undefined) {
      body = String(reply.serialize(series))
      serialized.set(series, body)
    }
    return (reply as FastifyReply).type('application/json; charset=utf-8').send(body)
  })

  app.get('/analytics/review-requests', { schema: schemas.reviewRequestAnalytics }, async (request) => {
    return service.reviewRequests(request.store!.id)
  })

  app.get('/analytics/storefront', { schema: schemas.storefrontAnalytics }, async (request) => {
    return service.storefront(request.store!.id, request.query)
  })
}
