import type { FastifyInstance } from 'fastify'
import { ordersRoutes } from './orders.routes.js'
import { defineModule } from '../../lib/module.js'

export { type OrderRow, ordersRepository } from './orders.repository.js'
export { ordersService, type OrdersService } from './orders.service.js'
export { reviewRequestScheduler } from './review-request.scheduler.js'

/** Orders (bulk upsert keyed on platformOrderId); their review requests are sent by a job (src/jobs.ts). */
export default async function orders (app: FastifyInstance) {
  await app.register(ordersRoutes, { service: app.services.orders })
}

export const manifest = defineModule({ name: 'orders', routes: [{ plugin: orders, prefix: '/v1' }] })
