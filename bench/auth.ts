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
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { bootstrapService } from '../src/modules/account/bootstrap.service.js'
import { sha256 } from '../src/lib/secrets.js'
import { base62, newId } from '../src/lib/ids.js'
import { systemClock } from '../src/lib/clock.js'
import { bareServer, measure, record, table } from './lib.js'

const KEYS = Number(process.env.BENCH_KEYS ?? 3000)
const config = loadConfig({
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
  LOG_LEVEL: 'silent',
  WORKERS: 'false'
})

const db = createKnex(config)
await migrateLatest(db)
const tenant = await bootstrapService(db, systemClock).bootstrap({ org: 'Bench', store: 'Bench store', owner: `bench-${base62(8).toLowerCase()}@example.test` })
const secrets: string[] = []
const rows = []
for (let i = 0; i < KEYS; i++) {
  const secret = `svc_${base62(40)}`
  secrets.push(secret)
  rows.push({ id: newId('key'), org_id: tenant.organization.id, name: `bench ${i}`, role: 'viewer', scopes: '[]', prefix: secret.slice(4, 12), secret_hash: sha256(secret), created_at: Date.now(), first_used_at: Date.now(), last_used_at: Date.now() })
}
for (let i = 0; i < rows.length; i += 500) await db('api_keys').insert(rows.slice(i, i + 500))

const app = await buildApp(config, { db, logger: false, redisPrefix: `eh:bench:${base62(6)}:` })
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
