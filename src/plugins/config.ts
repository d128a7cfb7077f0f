import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Clock } from '../lib/clock.js'
import type { PasswordHasher } from '../lib/passwords.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config, clock: Clock, hash: PasswordHasher }
}

export default fp<{ config: Config, clock: Clock, hash: PasswordHasher }>(async (app, opts) => {
  app.decorate('config', opts.config)
  app.decorate('clock', opts.clock)
  app.decorate('hash', opts.hash)
}, { name: 'config' })
