/**
 * npm run bench:auth — an authenticated, store-scoped GET through the whole pipeline (key lookup, role/scope check,
 * three-window Redis limiter) on MySQL + Redis, with enough keys that no budget is hit; against a bare fastify route
 * and against the same trivial route guarded by @fastify/rate-limit with its Redis store.
 */
import Fastify from 'fastify'
import type autocannon from 'autocannon'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import { buildApp } from '../src/app.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { base62 } from '../src/lib/ids.js'
import { bareServer, benchConfig, measure, record, seedBenchKeys, table } from './lib.js'

const KEYS = Number(process.env.BENCH_KEYS ?? 3000)
const config = benchConfig(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test')

const db = createKnex(config)
await migrateLatest(db)
const app = await buildApp(config, { db, logger: false, redisPrefix: `eh:bench:${base62(6)}:` })
const { tenant, secrets } = await seedBenchKeys(app.services, KEYS, 'viewer')
app.get('/v1/account/bench-probe', async () => ({ ok: true }))
const apiUrl = await app.listen({ port: 0, host: '127.0.0.1' })

const bare = await bareServer()
const redis = new Redis(config.redisUrl!)
const limited = Fastify({ logger: false })
await limited.register(rateLimit, { redis, max: 1_000_000_000, timeWindow: 60_000, nameSpace: `eh-bench-${base62(6)}-` })
limited.get('/limited', async () => ({ ok: true }))
const limitedUrl = `${await limited.listen({ port: 0, host: '127.0.0.1' })}/limited`

let next = 0
function rotatingKey (path: string): autocannon.Request[] {
  return [{
    method: 'GET',
    path,
    setupRequest: (req: autocannon.Request) => ({
      ...req,
      headers: { authorization: `Bearer ${secrets[next++ % secrets.length]}`, 'x-store-env-id': tenant.store.id }
    })
  }]
}

const baseline = await measure('bare fastify route', { url: bare.url })
const figures = [
  baseline,
  await measure('@fastify/rate-limit (Redis store), trivial route', { url: limitedUrl }),
  await measure('full pipeline, trivial handler', { url: apiUrl, requests: rotatingKey('/v1/account/bench-probe') }),
  await measure('full pipeline, GET /v1/account/members', { url: apiUrl, requests: rotatingKey('/v1/account/members?limit=5') })
]

record('auth', 'bench:auth — authenticated, store-scoped GET (MySQL + Redis)', [
  `${KEYS} distinct viewer keys in rotation, so no per-key budget is reached (non-2xx should be 0).`,
  '',
  table(figures, baseline),
  '',
  'The pipeline does per request: one indexed key lookup (MySQL), one store lookup, role and scope checks in memory,',
  'and one Redis Lua call that checks the three windows atomically.'
].join('\n'))

await Promise.all([app.close(), bare.app.close(), limited.close()])
redis.disconnect()
await db.destroy()
