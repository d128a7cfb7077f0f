import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bulkBodyValidator } from '../../lib/bulk.js'
import { errors } from '../../errors.js'
import type { ImportsService } from './imports.service.js'
import * as schemas from './imports.schemas.js'

export const importsRoutes: FastifyPluginAsyncTypebox<{ service: ImportsService }> = async (app, { service }) => {
  app.post('/imports', {
    schema: schemas.createImport,
    bodyLimit: schemas.IMPORT_BODY_LIMIT,
    validatorCompiler: bulkBodyValidator('items'),
    config: { errors: ['batch_too_large'] }
  }, async (request, reply) => {
    if (request.body.type !== 'reviews') throw new errors.InvalidRequest('type must be "reviews"')
    return reply.status(201).send(await service.create(request.store!, request.body.items))
  })

  app.get('/imports', { schema: schemas.listImports }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/imports/:id', { schema: schemas.getImport }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })
}
