import type { FastifyInstance } from 'fastify'
import { ordersRoutes } from './orders.routes.js'

/** Orders (bulk upsert keyed on platformOrderId); their review requests are sent by a job (src/jobs.ts). */
export default async function orders (app: FastifyInstance) {
  await app.register(ordersRoutes, { service: app.services.orders })
}
