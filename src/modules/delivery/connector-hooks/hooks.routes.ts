import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { HooksService } from './hooks.service.js'
import * as schemas from './hooks.schemas.js'

/**
 * A `webhooks` or a `connectors` scope opens them, either one (docs/contract/connectors.md#connector-scopes), so an app
 * asking for the documented `webhooks:write` works without a connectors scope; subscribing also checks the event's read
 * scope.
 */
const HOOK_SCOPES = ['webhooks', 'connectors'] as const

export const hooksRoutes: FastifyPluginAsyncTypebox<{ service: HooksService }> = async (app, { service }) => {
  app.post('/connectors/hooks', {
    schema: schemas.subscribe,
    config: { feature: 'connector-hooks', scopesOf: HOOK_SCOPES, errors: ['invalid_url', 'invalid_event_type'] }
  }, async (request, reply) => {
    const hook = await service.subscribe(request.credential!, request.store!.id, request.body)
    return reply.status(201).send(hook)
  })

  app.get('/connectors/hooks', { schema: schemas.listHooks, config: { scopesOf: HOOK_SCOPES } }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/connectors/hooks/:id', { schema: schemas.getHook, config: { scopesOf: HOOK_SCOPES } }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  const config = { scopesOf: HOOK_SCOPES, ifMatch: schemas.getHook.response[200] }
  app.delete('/connectors/hooks/:id', { schema: schemas.unsubscribe, config }, async (request, reply) => {
    await service.unsubscribe(request.credential!, request.store!.id, request.params.id, request.precondition)
    return reply.status(204).send(null)
  })
}
