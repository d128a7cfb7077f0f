import type { Socket } from 'node:net'
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
    // No auto-pipelining: it sends one batch at a time per connection (the next waits for the last one's replies) and
    // builds a pipeline object per batch, whose command objects a scavenge mostly found alive and promoted. Without
    // it the limiter's GET /v1/features served ~40 % more requests on less CPU and memory (bench/RESULTS.md).
    enableAutoPipelining: false
  })
  redis.on('connect', () => coalesceWrites((redis as unknown as { stream: Socket }).stream))
  redis.on('error', (err) => warn({ err: { message: err.message } }, 'redis error'))
  await redis.connect().catch((err: Error) => warn({ err: { message: err.message } }, 'redis unreachable at start'))
  return redis
}

/**
 * Commands issued while the event loop works through one batch of ready sockets (concurrent requests' limiter calls)
 * go out in writes of up to `most` commands, the rest at the end of the batch: each write is a syscall on this side
 * and a read on Redis's, and those syscalls were most of what a limiter call cost. Not all at once: Redis would then
 * wait for the whole batch while the service waits for Redis. bench/RESULTS.md has the measurements.
 */
export function coalesceWrites (stream: Socket, most = 16): void {
  let held = 0
  let turn = 0
  const release = () => {
    held = 0
    stream.uncork()
  }
  const write = stream.write
  stream.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    if (held === most) release()
    if (held++ === 0) {
      stream.cork()
      const mine = ++turn
      setImmediate(() => { if (mine === turn && held > 0) release() })
    }
    return write.apply(this, args)
  } as Socket['write']
}
