import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { BillingService } from './billing.service.js'
import * as schemas from './billing.schemas.js'

export const billingRoutes: FastifyPluginAsyncTypebox<{ service: BillingService }> = async (app, { service }) => {
  app.get(
    '/billing/subscription',
    { schema: schemas.getSubscription, config: { etag: true } },
    async (request) => service.subscription(request.store!)
  )

  app.post('/billing/subscription/change', { schema: schemas.changeSubscription }, async (request) => {
    return service.change(request.credential!, request.store!, request.body.plan, request.ip)
  })

  app.get('/billing/invoices', { schema: schemas.listInvoices }, async (request) => service.invoices(request.store!, request.query))
}
