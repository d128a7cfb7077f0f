import fp from 'fastify-plugin'
import { Redis } from 'ioredis'

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis | null
    /** Namespace of this deployment's keys; instances that share budgets share it. */
    redisPrefix: string
  }
}

/**
 * Shared state for a fleet of instances (rate limits, delivery throttles). Commands fail fast instead of
 * queueing while Redis is down, so callers can fall back (see plugins/rate-limit.ts) rather than hang.
 */
export default fp<{ redis?: Redis | null, prefix?: string }>(async (app, opts) => {
  app.decorate('redisPrefix', opts.prefix ?? 'eh:')
  if (opts.redis !== undefined) {
    app.decorate('redis', opts.redis)
    return
  }
  if (!app.config.redisUrl) {
    app.decorate('redis', null)
    return
  }
  const redis = new Redis(app.config.redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    lazyConnect: true
  })
  redis.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'redis error'))
  await redis.connect().catch((err: Error) => app.log.warn({ err: { message: err.message } }, 'redis unreachable at start'))
  app.decorate('redis', redis)
  app.addHook('onClose', async () => { redis.disconnect() })
}, { name: 'redis', dependencies: ['config'] })
