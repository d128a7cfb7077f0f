import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailService } from './email.service.js'
import { unsubscribePage } from './unsubscribe-page.js'
import * as schemas from './email.schemas.js'

/** Pages that carry a token: never cached, never indexed, never referred on. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'content-security-policy': 'default-src \'none\'; style-src \'unsafe-inline\'; form-action \'self\'; frame-ancestors \'none\''
}

export const emailRoutes: FastifyPluginAsyncTypebox<{ service: EmailService }> = async (app, { service }) => {
  // RFC 8058: the one-click POST comes as a form (urlencoded or multipart); its content is fixed, so it is not read.
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(type, { parseAs: 'string' }, (_request, _body, done) => done(null, {}))
  }

  app.get('/email/messages', { schema: schemas.listMessages }, async (request) => {
    return service.listMessages(request.credential!, request.store!, request.query)
  })

  app.get('/email/templates/:key', { schema: schemas.getTemplate }, async (request) => {
    return service.getTemplate(request.store!.id, request.params.key)
  })

  app.put('/email/templates/:key', { schema: schemas.putTemplate }, async (request) => {
    return service.putTemplate(request.store!, request.params.key, request.body)
  })

  app.delete('/email/templates/:key', { schema: schemas.resetTemplate }, async (request) => {
    return service.resetTemplate(request.store!, request.params.key)
  })

  app.post('/email/test', { schema: schemas.sendTest }, async (request) => {
    return service.sendTest(request.store!, request.body)
  })

  app.get('/email/unsubscribe/:token', { schema: schemas.unsubscribePage, config: { auth: 'public' } }, async (request, reply) => {
    const target = await service.unsubscribeTarget(request.params.token)
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(unsubscribePage(target, request.url, false))
  })

  app.post('/email/unsubscribe/:token', { schema: schemas.unsubscribe, config: { auth: 'public' } }, async (request, reply) => {
    const target = await service.unsubscribe(request.params.token)
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(unsubscribePage(target, request.url, true))
  })
}
