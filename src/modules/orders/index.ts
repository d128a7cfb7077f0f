import type { FastifyInstance } from 'fastify'
import { mailTransport } from '../../lib/mail.js'
import { productsRepository } from '../products/products.repository.js'
import { reviewsServiceFor } from '../reviews/index.js'
import { ordersRepository } from './orders.repository.js'
import { ordersService } from './orders.service.js'
import { ordersRoutes } from './orders.routes.js'
import { reviewRequestScheduler } from './review-request.scheduler.js'

const SCHEDULER_EVERY_MS = 30_000

/** The review request scheduler of this app (tests call `runDue()` themselves with workers off). */
export function reviewRequestsFor (app: FastifyInstance) {
  return reviewRequestScheduler({
    db: app.db, repo: ordersRepository(app.db), products: productsRepository(app.db), events: app.events, mail: mailTransport(app.config, app.clock), clock: app.clock
  })
}

/** Orders (bulk upsert keyed on platformOrderId) and their review requests. */
export default async function orders (app: FastifyInstance) {
  const reviews = reviewsServiceFor(app)
  const service = ordersService({
    db: app.db,
    repo: ordersRepository(app.db),
    products: productsRepository(app.db),
    events: app.events,
    clock: app.clock,
    reviewRequestDelayMs: app.config.reviewRequestDelayHours * 3_600_000,
    onWritten: (trx, store, rows) => reviews.reverify(trx, store, rows)
  })
  await app.register(ordersRoutes, { service })

  if (app.config.workers) {
    const scheduler = reviewRequestsFor(app)
    let running: Promise<unknown> | null = null
    const timer = setInterval(() => {
      if (running) return // the previous pass is still sending
      running = scheduler.runDue().catch((err) => app.log.error({ err }, 'review request scheduler failed')).finally(() => { running = null })
    }, SCHEDULER_EVERY_MS)
    timer.unref()
    app.addHook('onClose', async () => { clearInterval(timer); await running })
  }
}
