import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../lib/marked-cache.js'
import type { EventsService } from './events.service.js'
import * as schemas from './events.schemas.js'
import { LOG_SCOPES } from './event-access.js'

/** The log opens to either of its scopes (LOG_SCOPES); the service filters by each event's own resource. */
export const eventsRoutes: FastifyPluginAsyncTypebox<{ service: EventsService }> = async (app, { service }) => {
  app.get('/events', { schema: schemas.listEvents, config: { scopesOf: LOG_SCOPES, keptUnder: 'events' } }, async (request, reply) => {
    return sendKept(reply as FastifyReply, await service.list(request.credential!, request.store!.id, request.query, request.keptSeen))
  })

  app.get('/events/:id', { schema: schemas.getEvent, config: { scopesOf: LOG_SCOPES } }, async (request) => {
    return service.get(request.credential!, request.store!.id, request.params.id)
  })
}
