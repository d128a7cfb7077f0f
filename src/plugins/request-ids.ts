import fp from 'fastify-plugin'
import { actorOf } from '../types.js'

/**
 * Every response carries its request's id (`x-request-id`, made by `genReqId` in app.ts), the handle a caller
 * quotes to support: the caller's own `X-Request-Id` when it is 1 to 64 of `[A-Za-z0-9._:-]`, else one of ours
 * (lib/error-format.ts; an unsafe one is replaced, never refused). Every error body repeats it as `requestId`
 * (plugins/error-handler.ts). The ids of a credential's failed answers are kept (lib/recent-failures.ts) so a support
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
