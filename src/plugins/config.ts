import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Clock } from '../lib/clock.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config, clock: Clock }
}

export default fp<{ config: Config, clock: Clock }>(async (app, opts) => {
  app.decorate('config', opts.config)
  app.decorate('clock', opts.clock)
}, { name: 'config' })
