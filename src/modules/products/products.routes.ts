import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bulkBodyValidator } from '../../lib/bulk.js'
import type { ProductsService } from './products.service.js'
import * as schemas from './products.schemas.js'

export const productsRoutes: FastifyPluginAsyncTypebox<{ service: ProductsService }> = async (app, { service }) => {
  app.put('/products', {
    schema: schemas.upsertProducts,
    validatorCompiler: bulkBodyValidator('products'),
    config: { errors: ['batch_too_large'] }
  }, async (request) => {
    return service.upsert(request.store!, request.body.products)
  })

  app.get('/products', { schema: schemas.listProducts }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/products/:platformProductId', { schema: schemas.getProduct }, async (request) => {
    return service.get(request.store!.id, request.params.platformProductId)
  })
}
