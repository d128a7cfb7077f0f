import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../lib/marked-cache.js'
import type { AnalyticsService } from './analytics.service.js'
import * as schemas from './analytics.schemas.js'

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ service: AnalyticsService }> = async (app, { service }) => {
  // A kept series (analytics.service.ts) is the same object on each read: its JSON is made once.
  app.get('/analytics/reviews', { schema: schemas.reviewAnalytics, config: { keptUnder: 'reviews' } }, async (request, reply) => {
    return sendKept(reply as FastifyReply, await service.reviews(request.store!.id, request.query, request.keptSeen))
  })

  app.get('/analytics/review-requests', { schema: schemas.reviewRequestAnalytics }, async (request) => {
    return service.reviewRequests(request.store!.id)
  })

  app.get('/analytics/storefront', { schema: schemas.storefrontAnalytics }, async (request) => {
    return service.storefront(request.store!.id, request.query)
  })
}
