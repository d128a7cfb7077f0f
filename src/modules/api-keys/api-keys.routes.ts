import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiKeysService } from './api-keys.service.js'
import * as schemas from './api-keys.schemas.js'

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ service: ApiKeysService }> = async (app, { service }) => {
  app.post('/api-keys', {
    schema: schemas.createKey,
    config: { errors: ['invalid_scope', 'invalid_expiry', 'expiry_exceeds_credential', 'role_escalation', 'scope_escalation'] }
  }, async (request, reply) => {
    const key = await service.create(request.credential!, request.body, request.ip)
    return reply.status(201).send(key)
  })

  app.get('/api-keys', { schema: schemas.listKeys }, async (request) => {
    return service.list(request.credential!.orgId, request.query)
  })

  app.get('/api-keys/:id', { schema: schemas.getKey }, async (request) => {
    return service.get(request.credential!.orgId, request.params.id)
  })

  app.delete('/api-keys/:id', { schema: schemas.revokeKey }, async (request) => {
    return service.revoke(request.credential!, request.params.id, request.ip)
  })
}
