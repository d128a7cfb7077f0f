import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { HooksService } from './hooks.service.js'
import * as schemas from './hooks.schemas.js'

/**
 * Scope-exempt at the tenancy step (which would ask for a `connectors` scope): the service accepts a `webhooks` or
 * a `connectors` scope, either one, and checks the event's read scope (decisions.md section 9). Roles still apply.
 */
export const hooksRoutes: FastifyPluginAsyncTypebox<{ service: HooksService }> = async (app, { service }) => {
  app.post('/connectors/hooks', { schema: schemas.subscribe, config: { feature: 'connector-hooks', scopeExempt: true, errors: ['invalid_url', 'invalid_event_type'] } }, async (request, reply) => {
    const hook = await service.subscribe(request.credential!, request.store!.id, request.body)
    return reply.status(201).send(hook)
  })

  app.get('/connectors/hooks', { schema: schemas.listHooks, config: { scopeExempt: true } }, async (request) => {
    return service.list(request.credential!, request.store!.id, request.query)
  })

  app.get('/connectors/hooks/:id', { schema: schemas.getHook, config: { scopeExempt: true } }, async (request) => {
    return service.get(request.credential!, request.store!.id, request.params.id)
  })

  app.delete('/connectors/hooks/:id', { schema: schemas.unsubscribe, config: { scopeExempt: true } }, async (request, reply) => {
    await service.unsubscribe(request.credential!, request.store!.id, request.params.id)
    return reply.status(204).send(null)
  })
}
