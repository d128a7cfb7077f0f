import { Redis } from 'ioredis'

type Warn = (obj: object, msg: string) => void

/**
 * Shared state for a fleet of instances (rate limits, delivery throttles). Commands fail fast instead of queueing
 * while Redis is down, so callers can fall back (see plugins/rate-limit.ts) rather than hang.
 */
export async function connectRedis (url: string, warn: Warn): Promise<Redis> {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    lazyConnect: true,
    // Commands issued in the same tick (concurrent requests' limiter calls) go out in one write and one read.
    enableAutoPipelining: true
  })
  redis.on('error', (err) => warn({ err: { message: err.message } }, 'redis error'))
  await redis.connect().catch((err: Error) => warn({ err: { message: err.message } }, 'redis unreachable at start'))
  return redis
}
