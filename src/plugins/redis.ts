import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { connectRedis, REDIS_PREFIX } from '../lib/redis.js'

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis | null
    /** Namespace of this deployment's keys; instances that share budgets share it. */
    redisPrefix: string
  }
}

/** A Redis client passed in is the caller's; one made here from REDIS_URL is closed with the app. */
export default fp<{ redis?: Redis | null, prefix?: string }>(async (app, opts) => {
  app.decorate('redisPrefix', opts.prefix ?? app.config.redisPrefix ?? REDIS_PREFIX)
  if (opts.redis !== undefined) {
    app.decorate('redis', opts.redis)
    return
  }
  if (!app.config.redisUrl) {
    app.decorate('redis', null)
    return
  }
  const redis = await connectRedis(app.config.redisUrl, (obj, msg) => app.log.warn(obj, msg))
  app.decorate('redis', redis)
  app.addHook('onClose', async () => { redis.disconnect() })
}, { name: 'redis', dependencies: ['config'] })
