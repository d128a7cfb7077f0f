/**
 * The anchors every ratio is against, in their own process as the service runs in its own: a bare fastify route
 * (`/bare`), and with REDIS_URL the same route behind @fastify/rate-limit's Redis store, one window per credential
 * (`/limited`, keyed by the Authorization header as the service keys its budgets).
 */
import Fastify from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'

const app = Fastify({ logger: false })
app.get('/bare', async () => ({ ok: true }))
if (process.env.REDIS_URL) {
  const redis = new Redis(process.env.REDIS_URL)
  await app.register(async (limited) => {
    await limited.register(rateLimit, {
      redis,
      max: 1_000_000_000,
      timeWindow: 60_000,
      nameSpace: `eh-bench-anchor-${process.pid}-`,
      keyGenerator: (request) => String(request.headers.authorization ?? request.ip)
    })
    limited.get('/limited', async () => ({ ok: true }))
  })
  app.addHook('onClose', async () => { redis.disconnect() })
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
console.log('listening')
