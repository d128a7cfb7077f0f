/**
 * npm run bench:reviews — GET /v1/reviews with filters over 100,000 reviews in one store (MySQL + Redis), requests/s
 * and p99, against a bare fastify route in the same run.
 */
import { buildApp } from '../src/app.js'
import { newId } from '../src/lib/ids.js'
import { bareServer, measure, record, table } from './lib.js'
import { benchSetup, drain } from './catalog-lib.js'

const REVIEWS = Number(process.env.BENCH_REVIEWS ?? 100_000)
const PRODUCTS = 500
const ORDERS = 20_000

const { config, db, services, orgId, storeId, rotating } = await benchSetup(3000)
const started = Date.now()
const day = 86_400_000
for (let i = 0; i < REVIEWS; i += 1000) {
  const rows = Array.from({ length: Math.min(1000, REVIEWS - i) }, (_, j) => {
    const n = i + j
    return {
      id: newId('rev'),
      org_id: orgId,
      store_env_id: storeId,
      product_id: `p${n % PRODUCTS}`,
      order_id: n % 3 === 0 ? null : `o${n % ORDERS}`,
      rating: (n % 5) + 1,
      title: `Review ${n}`,
      body: `Body of review ${n}, long enough to look like a real one. `.repeat(3),
      author_name: `Author ${n}`,
      author_email: `author${n}@example.test`,
      verified: n % 4 === 0,
      status: n % 10 === 0 ? 'pending' : 'published',
      helpful_count: n % 7,
      media: '[]',
      source: n % 2 ? 'import' : 'storefront',
      written_at: started - (n * 7919 % (1500 * day)),
      created_at: started,
      updated_at: started
    }
  })
  await db('reviews').insert(rows)
}
console.log(`seeded ${REVIEWS} reviews in ${((Date.now() - started) / 1000).toFixed(1)} s`)

const app = await buildApp(config, { db, services, logger: false, redisPrefix: 'eh:bench:reviews:' })
const url = await app.listen({ port: 0, host: '127.0.0.1' })
const bare = await bareServer()

const products = Array.from({ length: 50 }, (_, i) => `/v1/reviews?productId=p${i * 7}`)
const orders = Array.from({ length: 50 }, (_, i) => `/v1/reviews?orderId=o${i * 13 + 1}`)
const baseline = await measure('bare fastify route', { url: bare.url })
const figures = [
  baseline,
  await measure('GET /v1/reviews (no filter, page 1)', { url, requests: rotating('GET', ['/v1/reviews']) }),
  await measure('GET /v1/reviews?verified=false', { url, requests: rotating('GET', ['/v1/reviews?verified=false']) }),
  await measure('GET /v1/reviews?productId=… (50 products)', { url, requests: rotating('GET', products) }),
  await measure('GET /v1/reviews?orderId=… (50 orders)', { url, requests: rotating('GET', orders) }),
  await measure('GET /v1/reviews?status=published&rating=5', { url, requests: rotating('GET', ['/v1/reviews?status=published&rating=5']) })
]

record('reviews', `bench:reviews — GET /reviews over ${REVIEWS.toLocaleString('en')} reviews in one store (MySQL + Redis)`, [
  '3000 keys in rotation, so no per-key budget is reached. Each list runs a count and a page query on',
  '(store_env_id, <filter>, written_at) indexes, newest writtenAt first.',
  '',
  table(figures, baseline),
  '',
  'Where the time goes (measured with MariaDB profiling on the same data): the page query itself takes 1-3 ms on its',
  'index, the `meta.total` count over a broad filter (no filter: 100,000 rows; verified=false: 75,000) takes 75-100 ms,',
  'so broad filters are bound by the count and narrow ones (productId, orderId) are fast. Figures come from a shared',
  '2-core machine (six other processes) with a pool of 10 connections. A follow-up could cache totals per store and',
  'filter for a few seconds, or serve an estimate above a threshold; the contract requires `meta.total`, so it stays exact.'
].join('\n'))

await drain()
await Promise.all([app.close(), bare.app.close()])
await db.destroy()
