/**
 * npm run bench:analytics — the analytics reads (docs/contract/resources.md#analytics, issue 18: ≤ 50 ms p99 over
 * 1,000,000 reviews) measured the way they run: the service in its own process as `npm start` runs it (compiled, MySQL
 * + Redis), a bare fastify process as the anchor, wrk in a third (bench/rotate.lua rotates viewer keys so no
 * per-credential budget is hit). The store is bench/read-seed.ts's 1,000,000 reviews (shared with bench:read and kept
 * between runs); its aggregates are rebuilt once with rebuildStore, as a restore does, since the seed writes rows
 * directly. Records req/s, the ratio to the bare route, p50/p99 and RSS in bench/RESULTS.md. Benchmarks are not tests:
 * nothing here asserts on time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadavg, tmpdir } from 'node:os'
import { ALL_PRODUCTS, rebuildStore } from '../src/modules/analytics/rollups.js'
import { periodRowsTable } from './analytics-rows.js'
import { CONNECTIONS, DURATION, record } from './lib.js'
import { benchService, figureTable, nodeFlagsOf, startCompiledService, startProcess, wrk } from './wrk.js'
import { PRODUCTS, REVIEWS, seedKeys, seedReviews, seedStore } from './read-seed.js'

// 200 requests a minute per key: at ~10,000 req/s across the targets, 12,000 keys keep every key under it.
const KEYS = Number(process.env.BENCH_KEYS ?? 12_000)
const { port: PORT, env, db, app } = await benchService('eh_bench_read')
const seeded = await seedStore(app.services)
await seedReviews(db, seeded)
// The store-wide rows count each review once (the per-product rows count it again).
const [{ n: rolled }] = await db('review_rollups').where({ store_env_id: seeded.storeId, product_id: ALL_PRODUCTS }).sum<
  Array<{ n: number | null }>
>({ n: 'n' })
if (Number(rolled ?? 0) !== REVIEWS) {
  const started = Date.now()
  await db.transaction((trx) => rebuildStore(trx, seeded.storeId))
  console.log(`rebuilt the store's aggregates in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
const keys = await seedKeys(db, seeded, KEYS)
// Measured before the service starts, so wrk's load is not in it.
const reads = await periodRowsTable(db, seeded.storeId, '2020-01-01', '2021-12-31', [
  ['store-wide by month', 'month', {}],
  ['published by week', 'week', { status: 'published' }],
  [`one product by week (1 of ${PRODUCTS})`, 'week', { productId: `p${Math.floor(PRODUCTS / 2)}` }],
  ['store-wide by day', 'day', {}]
])
await app.close()
await db.destroy()

const keysFile = join(mkdtempSync(join(tmpdir(), 'eh-bench-')), 'keys')
writeFileSync(keysFile, keys.join('\n') + '\n')

// The seed writes one review a minute from 2020-01-01: 1,000,000 reviews span 2020-01-01 to 2021-11-25.
const ALL = 'from=2020-01-01&to=2021-12-31'
const barePort = PORT + 1000
const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { ...env, PORT: String(barePort) }, /listening/)
const service = await startCompiledService(env)
const keyed = { script: 'bench/rotate.lua', args: [seeded.storeId, keysFile], pid: service.pid! }
try {
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare')
  wrk('warm-up (not recorded)', PORT, `/v1/analytics/reviews?${ALL}&interval=month`, keyed)
  const targets: Array<[string, string]> = [
    [`reviews by month over all ${REVIEWS} reviews (23 periods)`, `/v1/analytics/reviews?${ALL}&interval=month`],
    ['reviews by day over the same two years (731 periods)', `/v1/analytics/reviews?${ALL}&interval=day`],
    ['published reviews by week', `/v1/analytics/reviews?${ALL}&interval=week&status=published`],
    [
      `one product's reviews by week (1 of ${PRODUCTS})`,
      `/v1/analytics/reviews?${ALL}&interval=week&productId=p${Math.floor(PRODUCTS / 2)}`
    ],
    ['the last 30 days (default range)', '/v1/analytics/reviews'],
    ['review-request funnel by month', `/v1/analytics/review-requests?${ALL}&interval=month`],
    ['storefront engagement by month', `/v1/analytics/storefront?${ALL}&interval=month`]
  ]
  const figures = [anchor, ...targets.map(([name, path]) => wrk(`GET ${path.split('?')[0]}: ${name}`, PORT, path, keyed))]
  const worst = Math.max(...figures.slice(1).map((f) => f.p99))
  record('analytics', 'bench:analytics — analytics reads over 1,000,000 reviews, service in its own process (MySQL + Redis, wrk)', [
    `wrk -t2 -c${CONNECTIONS} -d${DURATION}s per target from its own process; the service started as \`node ${nodeFlagsOf('start').join(' ')} dist/src/server.js\` (as npm start runs it); the bare route in a third process; ${KEYS} viewer keys in rotation. One store holds ${REVIEWS} reviews.`,
    '',
    figureTable(figures),
    '',
    'The same long-range reads on the database alone (bench/analytics-rows.ts), as they were before week and month rollups and as they are now, measured on one connection before the service starts:',
    '',
    reads,
    '',
    `Goal (issue 18): p99 ≤ 50 ms over 1,000,000 reviews; the worst p99 here is ${worst} ms. Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
    '',
    'Reading: nothing writes reviews during the run, so after its first read each /analytics/reviews series is served from the series kept under the store\'s reviews marker (lib/marked-cache.ts) and its JSON made once: what is measured is the pipeline, the marker read and sending the answer. A store taking reviews moves the marker on each write, and the next read sums rollup rows, whose cost the table below measures on the database alone. Week and month series read whole periods from review_period_rollups / engagement_period_rollups (kept as data arrives beside the day rows) and only the partial periods at either end by day, so a two-year series reads a few hundred rows. A day series still reads one day row per day, status and rating (731 days × up to 15 for the whole store): its cost grows with the number of periods asked for, up to the 1,000-period cap.'
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
