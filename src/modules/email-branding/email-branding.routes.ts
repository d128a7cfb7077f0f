import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailService } from '../email/index.js'
import type { EmailBrandingService } from './email-branding.service.js'
import * as schemas from './email-branding.schemas.js'

export const emailBrandingRoutes: FastifyPluginAsyncTypebox<{ service: EmailBrandingService, email: EmailService }> = async (
  app,
  { service, email }
) => {
  app.get('/email-branding', { schema: schemas.getBranding, config: { etag: true } }, async (request) => {
    return service.get(request.store!.id)
  })

  app.put('/email-branding', { schema: schemas.putBranding }, async (request) => {
    return service.put(request.store!, request.body)
  })

  app.get('/email-branding/preview', { schema: schemas.previewBranding }, async (request, reply) => {
    const html = await email.preview(request.store!, request.query.templateKey)
    // The preview shows remote images (the logo) but runs nothing.
    return reply.header(
      'content-security-policy',
      'default-src \'none\'; img-src * data:; style-src \'unsafe-inline\'; frame-ancestors \'self\''
    ).type('text/html; charset=utf-8').send(html)
  })
}
