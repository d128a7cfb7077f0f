import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bulkBodyValidator } from '../../lib/bulk.js'
import type { CustomersService } from './customers.service.js'
import * as schemas from './customers.schemas.js'

export const customersRoutes: FastifyPluginAsyncTypebox<{ service: CustomersService }> = async (app, { service }) => {
  app.put('/customers', {
    schema: schemas.upsertCustomers,
    validatorCompiler: bulkBodyValidator('customers'),
    config: { errors: ['batch_too_large'] }
  }, async (request) => {
    return service.upsert(request.store!, request.body.customers)
  })

  app.get('/customers', { schema: schemas.listCustomers }, async (request) => {
    return service.list(request.store!.id, request.query)
  })

  app.get('/customers/:id', { schema: schemas.getCustomer }, async (request) => {
    return service.get(request.store!.id, request.params.id)
  })

  app.delete(
    '/customers/:id',
    { schema: schemas.eraseCustomer, config: { ifMatch: schemas.getCustomer.response[200] } },
    async (request, reply) => {
      await service.erase(request.store!, request.params.id, request.credential!, request.ip, request.precondition)
      return reply.status(204).send(null)
    }
  )
}
