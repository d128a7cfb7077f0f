import fp from 'fastify-plugin'
import type { Services } from '../services.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Every repository and service, built once by the composition root (src/services.ts). */
    services: Services
    /** Short names for the three the request pipeline uses most (`app.events.append(trx, …)` in writes). */
    events: Services['events']
    stores: Services['stores']
    audit: Services['audit']
  }
}

/** Hands the composition root's services to plugins and modules; `owned` ones are closed with the app. */
export default fp<{ services: Services, owned: boolean }>(async (app, opts) => {
  app.decorate('services', opts.services)
  app.decorate('events', opts.services.events)
  app.decorate('stores', opts.services.stores)
  app.decorate('audit', opts.services.audit)
  if (opts.owned) app.addHook('onClose', async () => { await opts.services.close() })
}, { name: 'services', dependencies: ['config', 'db', 'redis'] })
