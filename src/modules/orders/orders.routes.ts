import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bulkBodyValidator } from '../../lib/bulk.js'
import type { OrdersService } from './orders.service.js'
import * as schemas from './orders.schemas.js'

export const ordersRoutes: FastifyPluginAsyncTypebox<{ service: OrdersService }> = async (app, { service }) => {
  app.put('/orders', {
    schema: schemas.upsertOrders,
    validatorCompiler: bulkBodyValidator('orders'),
    config: { errors: ['batch_too_large'] }
  }, async (request) => {
    return service.upsert(request.store!, request.body.orders)
  })

  app.get('/orders', { schema: schemas.listOrders }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/orders/:platformOrderId', { schema: schemas.getOrder }, async (request) => {
    return service.get(request.store!.id, request.params.platformOrderId)
  })
}
