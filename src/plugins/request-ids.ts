import fp from 'fastify-plugin'
import { actorOf } from '../types.js'

/**
 * Every response carries its request's id (`x-request-id`, made by `genReqId` in app.ts), the handle a caller
 * quotes to support; the ids of a credential's failed answers are kept (lib/recent-failures.ts) so a support
 * request carries them without the caller collecting them.
 */
export default fp(async (app) => {
  const failures = app.services.recentFailures
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 400 && request.credential) await failures.record(actorOf(request.credential), request.id)
  })
}, { name: 'request-ids', dependencies: ['services'] })
