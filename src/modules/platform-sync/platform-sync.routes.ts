import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { PlatformSyncService } from './platform-sync.service.js'
import * as schemas from './platform-sync.schemas.js'

/** Store-scoped management of the platform secrets and API credentials (resource `webhooks`). */
export const platformSyncRoutes: FastifyPluginAsyncTypebox<{ service: PlatformSyncService }> = async (app, { service }) => {
  app.put('/webhooks/platforms/:platform', { schema: schemas.setPlatformSecret }, async (request) => {
    return service.setSecret(request.credential!, request.store!, request.params.platform, request.body.secret, request.ip)
  })

  app.get('/webhooks/platforms', { schema: schemas.listPlatformSecrets }, async (request) => {
    return service.listSecrets(request.store!)
  })

  app.put('/webhooks/platforms/bigcommerce/credentials', { schema: schemas.setBigCommerceCredentials }, async (request) => {
    return service.setApiCredentials(request.credential!, request.store!, request.body, request.ip)
  })

  app.delete('/webhooks/platforms/bigcommerce/credentials', { schema: schemas.removeBigCommerceCredentials }, async (request, reply) => {
    await service.removeApiCredentials(request.credential!, request.store!, request.ip)
    return reply.status(204).send(null)
  })
}

/**
 * The public receivers. The signature is over the bytes as sent, so this encapsulated plugin takes every body as a
 * Buffer (no JSON parse before the check: a re-serialised body would not match).
 */
export const receiverRoutes: FastifyPluginAsyncTypebox<{ service: PlatformSyncService }> = async (app, { service }) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })

  app.post('/webhooks/:platform/:storeEnvId', {
    schema: schemas.receivePlatformWebhook,
    config: { auth: 'public', errors: ['invalid_signature', 'service_unavailable'] }
  }, async (request) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const shop = request.headers['x-shopify-shop-domain']
    return service.receive(request.params.platform, request.params.storeEnvId, request.headers, raw, typeof shop === 'string' ? shop : null)
  })
}
