import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AffiliatesService } from './affiliates.service.js'
import * as schemas from './affiliates.schemas.js'

export const affiliatesRoutes: FastifyPluginAsyncTypebox<{ service: AffiliatesService }> = async (app, { service }) => {
  app.post('/affiliates', { schema: schemas.createAffiliate, config: { errors: ['conflict'] } }, async (request, reply) => {
    return reply.status(201).send(await service.create(request.store!, request.body))
  })

  app.get('/affiliates', { schema: schemas.listAffiliates }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/affiliates/settings', { schema: schemas.getSettings, config: { etag: true } }, async (request) => {
    return service.settings(request.store!.id)
  })

  app.put('/affiliates/settings', { schema: schemas.putSettings }, async (request) => {
    return service.saveSettings(request.store!, request.body.usdRates)
  })

  app.get('/affiliates/:id', { schema: schemas.getAffiliate }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  const ifMatch = schemas.getAffiliate.response[200]
  app.patch('/affiliates/:id', { schema: schemas.updateAffiliate, config: { errors: ['conflict'], ifMatch } }, async (request) => {
    return service.update(request.store!, request.params.id, request.body, request.precondition)
  })

  app.delete('/affiliates/:id', { schema: schemas.deleteAffiliate, config: { ifMatch } }, async (request, reply) => {
    await service.remove(request.store!, request.params.id, request.precondition)
    return reply.status(204).send(null)
  })

  app.get('/affiliates/:id/referrals', { schema: schemas.listReferrals }, async (request) => {
    return service.referrals(request.store!.id, request.params.id, request.query)
  })
}
