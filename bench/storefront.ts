/**
 * npm run bench:storefront — the widget reads (GET /v1/storefront/reviews and /summary) for a product with 10,000
 * published reviews, measured as bench/read-path.ts measures: the service in its own process as `npm start` runs it
 * (MySQL + Redis, TRUST_PROXY on), a bare fastify route in another as the anchor, wrk in a third
 * (bench/storefront.lua: an allowed Origin, each request from another visitor IP). Records the table in
 * bench/RESULTS.md. Benchmarks are not tests: nothing here asserts on time.
 */
import { loadavg } from 'node:os'
import { newId } from '../src/lib/ids.js'
import type { ReviewRow } from '../src/modules/reviews/reviews.repository.js'
import { CONNECTIONS, DURATION, record } from './lib.js'
import { benchService, figureTable, startCompiledService, startProcess, wrk } from './wrk.js'

const REVIEWS = 10_000
const ORIGIN = 'https://shop.example'
const { port: PORT, env, db, app } = await benchService('eh_bench_storefront', { TRUST_PROXY: 'true' })
// A fresh store per run: the product's reviews go in through the repository, so the tallies are kept as in service.
const seeded = await app.services.bootstrap.bootstrap({
  org: 'Bench storefront',
  store: 'Shop',
  owner: `bench-${Date.now()}@example.test`,
  plan: 'growth',
  origins: [ORIGIN]
})
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
  await app.services.reviewsRepo.insert(rows, trx)
})
await app.close()
await db.destroy()

const barePort = PORT + 1000
const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { ...env, PORT: String(barePort) }, /listening/)
const service = await startCompiledService(env)
// bench/storefront.lua: an allowed Origin, each request from another visitor IP.
const visitors = { script: 'bench/storefront.lua', args: [storeId, ORIGIN] }
try {
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare')
  wrk('warm-up (not recorded)', PORT, '/v1/storefront/reviews?productId=p1', visitors)
  const figures = [anchor,
    wrk(`GET /v1/storefront/reviews?productId= (${REVIEWS} published reviews, first page)`, PORT, '/v1/storefront/reviews?productId=p1', visitors),
    wrk('GET /v1/storefront/summary?productId=', PORT, '/v1/storefront/summary?productId=p1', visitors)]
  record('storefront', 'bench:storefront — widget reads, service in its own process (MySQL + Redis, wrk)', [
    `wrk -t2 -c${CONNECTIONS} -d${DURATION}s per target; each request from another visitor IP (X-Forwarded-For, TRUST_PROXY on) with an allowed Origin, so the per-IP budget is not what is measured. One product with ${REVIEWS} published reviews; no If-None-Match (every answer is a full 200).`,
    '',
    figureTable(figures, false),
    '',
    `Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}. On a shared machine the figures carry the other processes' load too.`,
    '',
    'Goal (issue 15): ≥ 0.5× the bare route and p99 < 10 ms. The answers and the store come from memory while their markers hold (src/lib/marked-cache.ts), so a request costs no query: its per-IP limit is counted by the limiter script, which reads the markers in the same call and settles all the requests of one event-loop turn at once. Each request here is a new visitor, so each writes a fresh limiter key.'
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
