import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EmailSettingsService } from './settings.service.js'
import * as schemas from './settings.schemas.js'

export const emailSettingsRoutes: FastifyPluginAsyncTypebox<{ service: EmailSettingsService }> = async (app, { service }) => {
  app.get('/email/settings', { schema: schemas.getSettings, config: { etag: true } }, async (request) => {
    return service.settingsOf(request.store!.id)
  })

  app.put('/email/settings', { schema: schemas.putSettings }, async (request) => {
    return service.put(request.store!, request.body)
  })
}
