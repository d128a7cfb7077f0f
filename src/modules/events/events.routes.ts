import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../lib/marked-cache.js'
import type { EventsService } from './events.service.js'
import * as schemas from './events.schemas.js'

/** scopeExempt: the service accepts either of the log's scopes and filters by each event's own resource. */
export const eventsRoutes: FastifyPluginAsyncTypebox<{ service: EventsService }> = async (app, { service }) => {
  app.get('/events', { schema: schemas.listEvents, config: { scopeExempt: true, keptUnder: 'events' } }, async (request, reply) => {
    return sendKept(reply as FastifyReply, await service.list(request.credential!, request.store!.id, request.query, request.keptSeen))
  })

  app.get('/events/:id', { schema: schemas.getEvent, config: { scopeExempt: true } }, async (request) => {
    return service.get(request.credential!, request.store!.id, request.params.id)
  })
}
