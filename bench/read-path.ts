/**
 * npm run bench:read — the read path measured the way it runs: the service as its own process started like
 * `npm start` (the compiled node dist/src/server.js, MySQL + Redis), a bare fastify process as the anchor, and wrk as
 * the load generator in a third process (bench/rotate.lua rotates credentials so no per-credential budget is hit).
 * Seeds one store with 1,000,000 reviews and 1,000,000 events (bench/read-seed.ts, kept between runs). Records
 * req/s, the ratio to the bare route, p50/p99 and the service's peak RSS in bench/RESULTS.md.
 * Benchmarks are not tests: nothing here asserts on time.
 */
import { writeFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { loadavg, tmpdir } from 'node:os'
import knex from 'knex'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { eventId } from '../src/modules/events/events.repository.js'
import { record } from './lib.js'
import { oauthMinter } from './oauth-tokens.js'
import { freshness, marker } from '../src/lib/freshness.js'
import { nodeFlagsOf, startCompiledService, startProcess, warmUp, wrk as runWrk, type WrkFigure } from './wrk.js'
import { EVENTS, PRODUCTS, REVIEWS, seedEvents, seedKeys, seedReviews, seedStore } from './read-seed.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
// Each credential may make 50 requests in 10 s and 200 a minute, and the key targets follow one another within a
// minute: at 30,000 req/s 8,000 keys reached their budgets in the later targets (and 4,000 tokens within one), and
// 429s flatter the figures. Keys and tokens together stay within the credential cache's 20,000 entries.
const KEYS = Number(process.env.BENCH_KEYS ?? 12_000)
const TOKENS = Number(process.env.BENCH_TOKENS ?? 8_000)
const PORT = 4000 + Math.floor(Math.random() * 1000)
const env = {
  ...process.env,
  PORT: String(PORT),
  PUBLIC_URL: `http://127.0.0.1:${PORT}`,
  DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/eh_bench_read',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
  LOG_LEVEL: 'silent',
  WORKERS: 'false'
}
const config = loadConfig(env)

const server = knex({ client: 'mysql2', connection: { uri: config.databaseUrl!.replace(/\/[^/]*$/, '/') } as never })
await server.raw(`CREATE DATABASE IF NOT EXISTS \`${new URL(config.databaseUrl!).pathname.slice(1)}\``)
await server.destroy()
const db = createKnex(config)
await migrateLatest(db)
// An app in this process only to seed and to mint OAuth tokens through the provider's own models (same issuer).
const app = await buildApp(config, { db, logger: false })
await app.ready()
const seeded = await seedStore(app.services)
await seedReviews(db, seeded)
await seedEvents(db, seeded)
const keys = await seedKeys(db, seeded, KEYS)
const tokens = await mintTokens(TOKENS)
const lastEvent = (await db('events').where({ store_env_id: seeded.storeId }).max<Array<{ m: number }>>({ m: 'id' }))[0].m
const midEvent = lastEvent - Math.floor(EVENTS / 2)
await app.close()
await db.destroy()

async function mintTokens (count: number): Promise<string[]> {
  const minter = await oauthMinter(app, { orgId: seeded.orgId, personId: seeded.ownerId, storeId: seeded.storeId }, 'Bench read path')
  const out: string[] = []
  for (let i = 0; i < count; i++) out.push((await minter.mint()).access)
  return out
}

type Figure = WrkFigure

const dir = mkdtempSync(join(tmpdir(), 'eh-bench-'))
const files = { keys: join(dir, 'keys'), tokens: join(dir, 'tokens') }
writeFileSync(files.keys, keys.join('\n') + '\n')
writeFileSync(files.tokens, tokens.join('\n') + '\n')

/** wrk in its own process (bench/wrk.ts), rotating the keys or the tokens through bench/rotate.lua. */
function wrk (name: string, port: number, path: string, credentials: keyof typeof files | null, pid: number | null): Figure {
  const rotate = credentials ? { script: 'bench/rotate.lua', args: [seeded.storeId, files[credentials]] } : {}
  return runWrk(name, port, path, { ...rotate, ...(pid ? { pid } : {}) })
}

const barePort = PORT + 1000
const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { ...env, PORT: String(barePort) }, /listening/)
const service = await startCompiledService(env)
const pid = service.pid!
const figures: Figure[] = []
try {
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare', null, null)
  figures.push(anchor)
  figures.push(
    wrk('same bare route behind @fastify/rate-limit (Redis store, one window per key; own process)', barePort, '/limited', 'keys', null)
  )
  const since = `/v1/events?since=${eventId(lastEvent)}`
  // Warm-up: every credential once, so the figures are of the steady state the design is for.
  await warmUp(PORT, since, seeded.storeId, keys)
  await warmUp(PORT, since, seeded.storeId, tokens)
  const targets: Array<[string, string, keyof typeof files]> = [
    ['trivial store-scoped GET /v1/features, API key (full pipeline, answered from memory)', '/v1/features', 'keys'],
    ['same GET, OAuth access token', '/v1/features', 'tokens'],
    ['store-scoped GET, API key (events after the newest: full pipeline, one query, empty page)', since, 'keys'],
    ['events GET, OAuth access token', since, 'tokens'],
    [`GET /v1/reviews, no filter (${REVIEWS} reviews)`, '/v1/reviews', 'keys'],
    ['GET /v1/reviews?verified=true', '/v1/reviews?verified=true', 'keys'],
    ['GET /v1/reviews?status=published', '/v1/reviews?status=published', 'keys'],
    ['GET /v1/reviews?rating=5', '/v1/reviews?rating=5', 'keys'],
    ['GET /v1/reviews?status=published&rating=5', '/v1/reviews?status=published&rating=5', 'keys'],
    [`GET /v1/reviews?productId= (1 of ${PRODUCTS})`, `/v1/reviews?productId=p${Math.floor(PRODUCTS / 2)}`, 'keys'],
    ['GET /v1/reviews?orderId=', `/v1/reviews?orderId=o${Math.floor(REVIEWS / 2)}`, 'keys'],
    [`GET /v1/events cursor mid-log (${EVENTS} events)`, `/v1/events?since=${eventId(midEvent)}`, 'keys'],
    ['connector polling GET /v1/connectors/triggers/review.created', '/v1/connectors/triggers/review.created', 'keys']
  ]
  for (const [name, path, credentials] of targets) figures.push(wrk(name, PORT, path, credentials, pid))
  // The same reads while the store's reviews and events markers move every millisecond: nothing kept survives.
  // The markers' Redis keys under the service's default prefix (plugins/redis.ts), as lib/freshness.ts names them.
  const { keyOf } = freshness(null, 'eh:')
  const churn = await startProcess(
    [
      '--import',
      'tsx',
      'bench/marker-churn.ts',
      env.REDIS_URL,
      keyOf(marker.reviews(seeded.storeId)),
      keyOf(marker.events(seeded.storeId))
    ],
    env,
    /churning/
  )
  try {
    const written: Array<[string, string]> = [
      ['GET /v1/reviews, no filter, store written to constantly (no page outlives a millisecond)', '/v1/reviews'],
      ['GET /v1/reviews?status=published&rating=5, written to constantly', '/v1/reviews?status=published&rating=5'],
      ['GET /v1/reviews?productId=, written to constantly', `/v1/reviews?productId=p${Math.floor(PRODUCTS / 2)}`],
      ['events GET after the newest, written to constantly', since],
      ['GET /v1/events cursor mid-log, written to constantly', `/v1/events?since=${eventId(midEvent)}`],
      ['connector polling, written to constantly', '/v1/connectors/triggers/review.created']
    ]
    for (const [name, path] of written) figures.push(wrk(name, PORT, path, 'keys', pid))
  } finally {
    churn.kill('SIGTERM')
  }
  const lines = ['| target | req/s | vs bare | p50 ms | p99 ms | non-2xx | service RSS MB |', '|---|---:|---:|---:|---:|---:|---:|']
  for (const f of figures) {
    lines.push(`| ${f.name} | ${f.rps} | ${(f.rps / anchor.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.rss ?? ''} |`)
  }
  const apiKey = figures[2]
  const oauth = figures[3]
  record('read', 'bench:read — the read path, service in its own process (MySQL + Redis, wrk)', [
    `wrk -t2 -c${CONNECTIONS} -d${DURATION}s per target from its own process; the service started as \`node ${nodeFlagsOf('start').join(' ')} dist/src/server.js\` (as npm start runs it); the bare route in a third process. ${KEYS} viewer keys and ${TOKENS} OAuth tokens in rotation, each used once before the first target (bench/wrk.ts warmUp). One store holds ${REVIEWS} reviews and ${EVENTS} events.`,
    '',
    lines.join('\n'),
    '',
    'Lists, event pages and polls are kept in memory under the store\'s reviews or events marker, read in the request\'s limiter call (src/lib/marked-cache.ts): nothing writes during the first targets, so they are answered from memory; the "written to constantly" targets run while another process moves both markers every millisecond, so nothing kept survives and reads query MySQL as a busy store\'s would; reads that miss the same page under the same marker value share one query (MarkedCache.through).',
    '',
    `OAuth token vs API key on the same GET: ${(oauth.rps / apiKey.rps).toFixed(2)}×. Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')} — on a shared machine the ratios carry the other processes' load too.`
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
