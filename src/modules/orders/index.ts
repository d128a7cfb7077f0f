import type { FastifyInstance } from 'fastify'
import { ordersRoutes } from './orders.routes.js'
import { defineModule } from '../../lib/module.js'
import { ordersRepository } from './orders.repository.js'
import { ordersService, type OrdersService } from './orders.service.js'
import { reviewRequestScheduler } from './review-request.scheduler.js'

export { type OrderRow, ordersRepository } from './orders.repository.js'
export { ordersService, type OrdersService } from './orders.service.js'
export { reviewRequestScheduler } from './review-request.scheduler.js'

/** Orders (bulk upsert keyed on platformOrderId); their review requests are sent by a job (src/jobs.ts). */
export default async function orders (app: FastifyInstance) {
  await app.register(ordersRoutes, { service: app.services.orders })
}

declare module '../../lib/module.js' {
  interface Services {
    ordersRepo: ReturnType<typeof ordersRepository>
    orders: OrdersService
    reviewRequests: ReturnType<typeof reviewRequestScheduler>
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { orders: true }
}

export const manifest = defineModule({
  name: 'orders',
  resources: {
    orders: {
      read: 'viewer',
      write: 'editor',
      area: 'Catalog & reviews',
      description: 'Orders, which mark a reviewer as a verified buyer.'
    }
  },
  services: {
    ordersRepo: ({ db }) => ordersRepository(db),
    orders: ({ db, ordersRepo, productsRepo, events, clock, config, bus, orderCustomers, emailSequencesRepo }) =>
      ordersService({
        db,
        repo: ordersRepo,
        products: productsRepo,
        events,
        clock,
        reviewRequestDelayMs: config.reviewRequestDelayHours * 3_600_000,
        bus,
        resolveCustomers: orderCustomers,
        activeSequence: (storeId, trx) => emailSequencesRepo.active(storeId, trx)
      }),
    reviewRequests: ({ db, ordersRepo, productsRepo, events, mailSender, emailSequencesRepo, reviewsRepo, clock }) =>
      reviewRequestScheduler({
        db,
        repo: ordersRepo,
        products: productsRepo,
        events,
        sender: mailSender,
        sequences: emailSequencesRepo,
        reviewed: reviewsRepo.hasOrderReview,
        clock
      })
  },
  emits: ['orders.written'],
  routes: [{ plugin: orders, prefix: '/v1' }]
})
