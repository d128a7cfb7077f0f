import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FeaturesService } from './features.service.js'
import * as schemas from './features.schemas.js'

export const featuresRoutes: FastifyPluginAsyncTypebox<{ service: FeaturesService }> = async (app, { service }) => {
  app.get(
    '/features',
    { schema: schemas.getFeatures },
    async (request) => service.entitlements(request.store!, await app.storeOverrides(request))
  )
}
