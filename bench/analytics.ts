/**
 * npm run bench:analytics — the analytics reads (decisions.md section 15, issue 18: ≤ 50 ms p99 over 1,000,000
 * reviews) measured the way they run: the service in its own process as `npm start` runs it (compiled, MySQL +
 * Redis), a bare fastify process as the anchor, wrk in a third (bench/rotate.lua rotates viewer keys so no
 * per-credential budget is hit). The store is bench/read-seed.ts's 1,000,000 reviews (shared with bench:read and
 * kept between runs); its aggregates are rebuilt once with rebuildStore, as a restore does, since the seed writes
 * rows directly. Records req/s, the ratio to the bare route, p50/p99 and RSS in bench/RESULTS.md.
 * Benchmarks are not tests: nothing here asserts on time.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { loadavg, tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import knex from 'knex'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { rebuildStore } from '../src/modules/analytics/rollups.js'
import { CONNECTIONS, DURATION, record } from './lib.js'
import { PRODUCTS, REVIEWS, seedKeys, seedReviews, seedStore } from './read-seed.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const KEYS = Number(process.env.BENCH_KEYS ?? 3000)
const PORT = 6000 + Math.floor(Math.random() * 1000)
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
const app = await buildApp(config, { db, logger: false })
await app.ready()
const seeded = await seedStore(app.services)
await seedReviews(db, seeded)
const [{ n: rolled }] = await db('review_rollups').where({ store_env_id: seeded.storeId }).sum<Array<{ n: number | null }>>({ n: 'n' })
if (Number(rolled ?? 0) !== REVIEWS) {
  const started = Date.now()
  await db.transaction((trx) => rebuildStore(trx, seeded.storeId))
  console.log(`rebuilt the store's aggregates in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
const keys = await seedKeys(db, seeded, KEYS)
await app.close()
await db.destroy()

function start (args: string[], ready: RegExp, extra: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let seen = ''
    child.stdout!.on('data', (chunk: Buffer) => { seen += chunk.toString(); if (ready.test(seen)) resolve(child) })
    child.stderr!.on('data', (chunk: Buffer) => { seen += chunk.toString() })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${seen.slice(-2000)}`)))
  })
}

function rssMb (pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Math.round(Number(line?.replace(/\D+/g, '') ?? 0) / 1024)
}

interface Figure { name: string, rps: number, p50: number, p99: number, non2xx: number, rss: number | null }

const keysFile = join(mkdtempSync(join(tmpdir(), 'eh-bench-')), 'keys')
writeFileSync(keysFile, keys.join('\n') + '\n')

function wrk (name: string, port: number, path: string, pid: number | null): Figure {
  const args = ['-t2', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency']
  if (pid) args.push('-s', join(root, 'bench/rotate.lua'))
  args.push(`http://127.0.0.1:${port}${pid ? '' : path}`)
  if (pid) args.push('--', path, seeded.storeId, keysFile)
  const out = spawnSync('wrk', args, { encoding: 'utf8' }).stdout
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
    return m ? Math.round(Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2]] * 10) / 10 : NaN
  }
  const figure = { name, rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)), p50: ms('50'), p99: ms('99'), non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0), rss: pid ? rssMb(pid) : null }
  console.log(`${name}: ${figure.rps} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-2xx ${figure.non2xx}${figure.rss ? `, RSS ${figure.rss} MB` : ''}`)
  return figure
}

// The seed writes one review a minute from 2020-01-01: 1,000,000 reviews span 2020-01-01 to 2021-11-25.
const ALL = 'from=2020-01-01&to=2021-12-31'
const barePort = PORT + 1000
const bare = await start(['--import', 'tsx', 'bench/bare-server.ts'], /listening/, { PORT: String(barePort) })
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
const service = await start(['--enable-source-maps', 'dist/src/server.js'], /is listening/)
const pid = service.pid!
try {
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare', null)
  wrk('warm-up (not recorded)', PORT, `/v1/analytics/reviews?${ALL}&interval=month`, pid)
  const targets: Array<[string, string]> = [
    [`reviews by month over all ${REVIEWS} reviews (23 periods)`, `/v1/analytics/reviews?${ALL}&interval=month`],
    ['reviews by day over the same two years (731 periods)', `/v1/analytics/reviews?${ALL}&interval=day`],
    ['published reviews by week', `/v1/analytics/reviews?${ALL}&interval=week&status=published`],
    [`one product's reviews by week (1 of ${PRODUCTS})`, `/v1/analytics/reviews?${ALL}&interval=week&productId=p${Math.floor(PRODUCTS / 2)}`],
    ['the last 30 days (default range)', '/v1/analytics/reviews'],
    ['review-request funnel by month', `/v1/analytics/review-requests?${ALL}&interval=month`],
    ['storefront engagement by month', `/v1/analytics/storefront?${ALL}&interval=month`]
  ]
  const figures = [anchor, ...targets.map(([name, path]) => wrk(`GET ${path.split('?')[0]}: ${name}`, PORT, path, pid))]
  const lines = ['| target | req/s | vs bare | p50 ms | p99 ms | non-2xx | service RSS MB |', '|---|---:|---:|---:|---:|---:|---:|']
  for (const f of figures) lines.push(`| ${f.name} | ${f.rps} | ${(f.rps / anchor.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.rss ?? ''} |`)
  const worst = Math.max(...figures.slice(1).map((f) => f.p99))
  record('analytics', 'bench:analytics — analytics reads over 1,000,000 reviews, service in its own process (MySQL + Redis, wrk)', [
    `wrk -t2 -c${CONNECTIONS} -d${DURATION}s per target from its own process; the service started as \`node dist/src/server.js\` (as npm start runs it); the bare route in a third process; ${KEYS} viewer keys in rotation. One store holds ${REVIEWS} reviews.`,
    '',
    lines.join('\n'),
    '',
    `Goal (issue 18): p99 ≤ 50 ms over 1,000,000 reviews; the worst p99 here is ${worst} ms. Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
