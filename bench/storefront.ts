/**
 * npm run bench:storefront — the widget reads (GET /v1/storefront/reviews and /summary) for a product with 10,000
 * published reviews, measured as bench/read-path.ts measures: the service in its own process as `npm start` runs it
 * (MySQL + Redis, TRUST_PROXY on), a bare fastify route in another as the anchor, wrk in a third
 * (bench/storefront.lua: an allowed Origin, each request from another visitor IP). Records the table in
 * bench/RESULTS.md. Benchmarks are not tests: nothing here asserts on time.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join, dirname } from 'node:path'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import knex from 'knex'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { newId } from '../src/lib/ids.js'
import type { ReviewRow } from '../src/modules/reviews/reviews.repository.js'
import { CONNECTIONS, DURATION, record } from './lib.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const REVIEWS = 10_000
const ORIGIN = 'https://shop.example'
const PORT = 5000 + Math.floor(Math.random() * 1000)
const env = {
  ...process.env,
  PORT: String(PORT),
  PUBLIC_URL: `http://127.0.0.1:${PORT}`,
  DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/eh_bench_storefront',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
  TRUST_PROXY: 'true',
  LOG_LEVEL: 'silent',
  WORKERS: 'false'
}
const config = loadConfig(env)

const server = knex({ client: 'mysql2', connection: { uri: config.databaseUrl!.replace(/\/[^/]*$/, '/') } as never })
await server.raw(`CREATE DATABASE IF NOT EXISTS \`${new URL(config.databaseUrl!).pathname.slice(1)}\``)
await server.destroy()
const db = createKnex(config)
await migrateLatest(db)
const app = await buildApp(config, { db, logger: false })
await app.ready()
// A fresh store per run: the product's reviews go in through the repository, so the tallies are kept as in service.
const seeded = await app.services.bootstrap.bootstrap({ org: 'Bench storefront', store: 'Shop', owner: `bench-${Date.now()}@example.test`, plan: 'growth', origins: [ORIGIN] })
const storeId = seeded.store.id
const orgId = seeded.organization.id
await db.transaction(async (trx) => {
  const now = Date.now()
  const rows: ReviewRow[] = Array.from({ length: REVIEWS }, (_, i) => ({
    id: newId('rev'),
    org_id: orgId,
    store_env_id: storeId,
    product_id: 'p1',
    order_id: null,
    rating: 1 + (i % 5),
    title: `Review ${i}`,
    body: 'Soft linen, true to size, and it survived the wash.',
    author_name: `Shopper ${i}`,
    author_email: `s${i}@example.test`,
    verified: i % 2 === 0,
    status: 'published',
    helpful_count: i % 7,
    media: '[]',
    source: 'import',
    reply: null,
    replied_at: null,
    import_id: null,
    written_at: now - i * 60_000,
    created_at: now,
    updated_at: now
  }))
  await app.services.repos.reviews.insert(rows, trx)
})
await app.close()
await db.destroy()

function start (args: string[], extra: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let seen = ''
    child.stdout!.on('data', (chunk: Buffer) => { seen += chunk.toString(); if (ready.test(seen)) resolve(child) })
    child.stderr!.on('data', (chunk: Buffer) => { seen += chunk.toString() })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${seen.slice(-2000)}`)))
  })
}

interface Figure { name: string, rps: number, p50: number, p99: number, non2xx: number }

function wrk (name: string, port: number, path: string, storefront: boolean): Figure {
  const args = ['-t2', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency']
  if (storefront) args.push('-s', join(root, 'bench/storefront.lua'))
  args.push(`http://127.0.0.1:${port}${storefront ? '' : path}`)
  if (storefront) args.push('--', path, storeId, ORIGIN)
  const out = spawnSync('wrk', args, { encoding: 'utf8' }).stdout
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
    return m ? Math.round(Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2]] * 10) / 10 : NaN
  }
  const figure = { name, rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)), p50: ms('50'), p99: ms('99'), non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) }
  console.log(`${name}: ${figure.rps} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-2xx ${figure.non2xx}`)
  return figure
}

const barePort = PORT + 1000
const bare = await start(['--import', 'tsx', 'bench/bare-server.ts'], { PORT: String(barePort) }, /listening/)
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
const service = await start(['--enable-source-maps', 'dist/src/server.js'], {}, /is listening/)
try {
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare', false)
  wrk('warm-up (not recorded)', PORT, '/v1/storefront/reviews?productId=p1', true)
  const figures = [anchor,
    wrk(`GET /v1/storefront/reviews?productId= (${REVIEWS} published reviews, first page)`, PORT, '/v1/storefront/reviews?productId=p1', true),
    wrk('GET /v1/storefront/summary?productId=', PORT, '/v1/storefront/summary?productId=p1', true)]
  const lines = ['| target | req/s | vs bare | p50 ms | p99 ms | non-2xx |', '|---|---:|---:|---:|---:|---:|']
  for (const f of figures) lines.push(`| ${f.name} | ${f.rps} | ${(f.rps / anchor.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} |`)
  record('storefront', 'bench:storefront — widget reads, service in its own process (MySQL + Redis, wrk)', [
    `wrk -t2 -c${CONNECTIONS} -d${DURATION}s per target; each request from another visitor IP (X-Forwarded-For, TRUST_PROXY on) with an allowed Origin, so the per-IP budget is not what is measured. One product with ${REVIEWS} published reviews; no If-None-Match (every answer is a full 200).`,
    '',
    lines.join('\n'),
    '',
    `Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}. On a shared machine the figures carry the other processes' load too.`,
    '',
    'Goal (issue 15): ≥ 0.5× the bare route and p99 < 10 ms. Each request here is a new visitor, so each spends a fresh per-IP limiter key in Redis besides the store lookup and the MySQL reads; an in-process cache of the answers keyed by the product\'s tallies is the next step if the goal is not met.'
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
