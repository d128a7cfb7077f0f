import fp from 'fastify-plugin'
import type { FastifyReply } from 'fastify'
import { MemoryStore, RateLimiter, RedisStore, type Verdict, type Window } from '../lib/rate-limiter.js'
import { errors } from '../errors.js'
import { REQUEST_WINDOWS } from '../features.js'

declare module 'fastify' {
  interface FastifyInstance {
    limiter: RateLimiter
    /** Counts one request for `key`; sets the RateLimit-* headers; throws 429 `rate_limited` when refused. */
    enforceLimit: (reply: FastifyReply, key: string, windows: Window[]) => Promise<Verdict>
    /** What enforceLimit does with a verdict already taken: the headers, then 429 when refused. */
    applyVerdict: (reply: FastifyReply, verdict: Verdict) => void
  }
}

/**
 * docs/contract/plans-and-limits.md#request-limits: per caller, three windows applied together (the plan limits
 * `GET /features` shows).
 */
export const CREDENTIAL_WINDOWS: Window[] = [...REQUEST_WINDOWS]
/** Failed authentication attempts per IP: past this, further failures get 429 (valid credentials are still served). */
export const AUTH_FAILURE_WINDOWS: Window[] = [{ ms: 60_000, limit: 30 }]
/** Unauthenticated, non-storefront routes (health, OpenAPI): generous, but not unbounded. */
export const PUBLIC_WINDOWS: Window[] = [{ ms: 10_000, limit: 100 }]
/** The key of a visitor IP's public budget: public routes, unknown URLs and refused storefront calls share it. */
export const publicLimitKey = (ip: string): string => `ip:public:${ip}`

export function setLimitHeaders (reply: FastifyReply, verdict: Verdict): void {
  reply.header('RateLimit-Limit', verdict.limit)
  reply.header('RateLimit-Remaining', verdict.remaining)
  reply.header('RateLimit-Reset', verdict.resetSeconds)
}

/**
 * With REDIS_URL every instance counts in one shared budget. If Redis becomes unreachable we keep limiting
 * per instance in memory (fail soft, never fail open): the API stays up and no caller gets unbounded access;
 * budgets are per instance until Redis answers again. The health check reports Redis as failing meanwhile.
 */
export default fp(async (app) => {
  const memory = new MemoryStore()
  let lastWarn = 0
  const limiter = new RateLimiter({
    store: app.redis ? new RedisStore(app.redis, `${app.redisPrefix}rlog:`) : memory,
    fallback: app.redis ? memory : undefined,
    clock: app.clock,
    onStoreError: (err) => {
      const now = Date.now()
      if (now - lastWarn > 10_000) {
        lastWarn = now
        app.log.warn({ err: { message: (err as Error).message } }, 'rate limit store unreachable; limiting per instance')
      }
    }
  })
  app.decorate('limiter', limiter)
  function applyVerdict (reply: FastifyReply, verdict: Verdict) {
    setLimitHeaders(reply, verdict)
    if (!verdict.allowed) {
      reply.header('Retry-After', verdict.retryAfterSeconds)
      throw new errors.RateLimited(verdict.retryAfterSeconds)
    }
  }
  app.decorate('applyVerdict', applyVerdict)
  app.decorate('enforceLimit', async (reply: FastifyReply, key: string, windows: Window[]) => {
    const verdict = await limiter.consume(key, windows)
    applyVerdict(reply, verdict)
    return verdict
  })
}, { name: 'rate-limit', dependencies: ['config', 'redis'] })
