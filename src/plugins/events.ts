import fp from 'fastify-plugin'
import { eventLog, type EventLog } from '../modules/events/events.repository.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** `app.events.append(trx, { orgId, storeEnvId, type, data })` in the same transaction as the write. */
    events: EventLog
  }
}

export default fp(async (app) => {
  app.decorate('events', eventLog(app.clock))
}, { name: 'events', dependencies: ['db'] })
