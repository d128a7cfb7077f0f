import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendKept } from '../../../lib/marked-cache.js'
import type { TriggersService } from './triggers.service.js'
import * as schemas from './triggers.schemas.js'

/**
 * Identity and catalogue answer any valid credential (a connector scoped to orders must still pass its connection
 * test); polling checks the event's own resource in the service instead of `connectors`.
 */
export const triggersRoutes: FastifyPluginAsyncTypebox<{ service: TriggersService }> = async (app, { service }) => {
  app.get('/connectors/me', { schema: schemas.me, config: { scopeExempt: true } }, async (request) => {
    return service.me(request.credential!, request.store!)
  })

  app.get('/connectors/triggers', { schema: schemas.catalogue, config: { scopeExempt: true } }, async () => {
    return service.catalogue()
  })

  app.get(
    '/connectors/triggers/:event',
    { schema: schemas.poll, config: { scopeExempt: true, keptUnder: 'events' } },
    async (request, reply) => {
      return sendKept(
        reply as FastifyReply,
        await service.poll(request.credential!, request.store!, request.params.event, request.query.limit, request.keptSeen)
      )
    }
  )
}
