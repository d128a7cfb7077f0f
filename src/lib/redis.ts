import { Redis } from 'ioredis'

type Warn = (obj: object, msg: string) => void

/** The namespace of a deployment's Redis keys when REDIS_PREFIX is not set. */
export const REDIS_PREFIX = 'eh:'

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
    // No auto-pipelining: it sends one batch at a time per connection (the next waits for the last one's replies) and
    // builds a pipeline object per batch, whose command objects a scavenge mostly found alive and promoted. Without
    // it the limiter's GET /v1/features served ~40 % more requests on less CPU and memory (bench/RESULTS.md).
    enableAutoPipelining: false
  })
  redis.on('error', (err) => warn({ err: { message: err.message } }, 'redis error'))
  await redis.connect().catch((err: Error) => warn({ err: { message: err.message } }, 'redis unreachable at start'))
  return redis
}
