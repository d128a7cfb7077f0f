/**
 * npm run bench:bulk — PUT /v1/products with 250-item batches on MySQL + Redis through the whole pipeline, in items/s
 * and p99, against a raw knex multi-row upsert (INSERT … ON DUPLICATE KEY UPDATE) of the same rows in the same run,
 * and against a bare fastify route. The service runs as its own process (src/server.ts); autocannon and the raw
 * upsert run in this one.
 */
import { loadavg } from 'node:os'
import { bareServer, DURATION, measure, record, table } from './lib.js'
import { benchSetup, DATABASE_URL, drain, percentile } from './catalog-lib.js'
import { startService } from './service-process.js'

const BATCH = 250
const POOL = 5000
const CONNECTIONS = Number(process.env.BENCH_BULK_CONNECTIONS ?? 8)

const { config, db, orgId, storeId, rotating } = await benchSetup(2000)
const service = await startService('server', {
  DATABASE_URL,
  REDIS_URL: config.redisUrl ?? 'redis://127.0.0.1:6379',
  SECRET_KEY: config.secretKey,
  WORKERS: 'false'
})
const apiUrl = service.url
const bare = await bareServer()

function items (n: number, tag = String(n)) {
  return Array.from({ length: BATCH }, (_, i) => {
    const id = `sku-${(n * BATCH + i) % POOL}`
    return { platformProductId: id, title: `Product ${id} v${tag}`, url: `https://shop.example/p/${id}`, imageUrl: `https://cdn.shop.example/${id}.jpg`, excludedFromReviewRequests: i % 17 === 0, exclusionReason: i % 17 === 0 ? 'sample' : null }
  })
}

/**
 * The same rows as the API writes, upserted with knex directly by CONNECTIONS workers for DURATION seconds. With
 * `withEvents`, each batch also inserts one event row per item in the same transaction (what the API must write by
 * contract, without its locking, checks or HTTP): the floor the API's own figure can be read against.
 */
async function rawUpsert (withEvents = false) {
  const latencies: number[] = []
  let n = 1_000_000
  const until = Date.now() + DURATION * 1000
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < until) {
      const now = Date.now()
      const rows = items(n++).map((p) => ({
        org_id: orgId,
        store_env_id: storeId,
        platform_product_id: p.platformProductId,
        title: p.title,
        url: p.url,
        image_url: p.imageUrl,
        excluded_from_review_requests: p.excludedFromReviewRequests,
        exclusion_reason: p.exclusionReason,
        created_at: now,
        updated_at: now
      }))
      const started = performance.now()
      const upsert = (trx: typeof db) => trx('products').insert(rows).onConflict(['store_env_id', 'platform_product_id']).merge(['title', 'url', 'image_url', 'excluded_from_review_requests', 'exclusion_reason', 'updated_at'])
      if (!withEvents) await upsert(db)
      else {
        await db.transaction(async (trx) => {
          await upsert(trx)
          await trx('events').insert(rows.map((r) => ({ org_id: orgId, store_env_id: storeId, type: 'product.upserted', data: JSON.stringify(r), created_at: now })))
        })
      }
      latencies.push(performance.now() - started)
    }
  }))
  latencies.sort((a, b) => a - b)
  const rps = Math.round(latencies.length / DURATION)
  const name = withEvents ? 'raw knex upsert + 250 event rows, one transaction' : 'raw knex multi-row upsert, 250 rows'
  console.log(`${name}: ${rps} batches/s, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`)
  return { name, rps, p50: Math.round(percentile(latencies, 0.5)), p99: Math.round(percentile(latencies, 0.99)), errors: 0, non2xx: 0 }
}

const baseline = await measure('bare fastify route', { url: bare.url })
const raw = await rawUpsert()
const rawEvents = await rawUpsert(true)
const api = await measure('PUT /v1/products, 250 changed items', { url: apiUrl, connections: CONNECTIONS, requests: rotating('PUT', ['/v1/products'], (n) => JSON.stringify({ products: items(n) })) })
const same = JSON.stringify({ products: items(0, 'fixed') })
const noop = await measure('PUT /v1/products, 250 identical items (re-send)', { url: apiUrl, connections: CONNECTIONS, requests: rotating('PUT', ['/v1/products'], () => same) })

const line = (f: typeof raw) => `| ${f.name} | ${f.rps * BATCH} | ${(f.rps / raw.rps).toFixed(2)} | ${f.p99} | ${f.non2xx + f.errors} |`
record('bulk', 'bench:bulk — PUT /products, 250-item batches (MySQL + Redis)', [
  `${CONNECTIONS} concurrent writers into one store; ids drawn from a pool of ${POOL}, so batches mix inserts and updates.`,
  `Service in its own process${process.env.BENCH_SERVICE_DIR ? ` (built from ${process.env.BENCH_SERVICE_DIR})` : ''}; machine load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')}.`,
  '',
  '| target | items/s | vs raw knex | p99 ms per batch | failures |',
  '|---|---:|---:|---:|---:|',
  line(raw),
  line(rawEvents),
  line(api),
  line(noop),
  '',
  'Request-level figures against the bare route:',
  '',
  table([baseline, api, noop], baseline),
  '',
  'Per batch the API does, in one READ COMMITTED transaction: a locking read of the batch\'s rows (in key order), compare,',
  'one multi-row upsert of the changed rows, then the store\'s event lock (ids stay commit-ordered), one multi-row',
  'insert of their `product.upserted` events and one subscription lookup for the outbox; plus the per-item schema',
  'check and the auth pipeline. Disjoint batches of a store proceed in parallel up to the event append. Unchanged',
  'items are not written at all, so an identical re-send costs little more than the read. Shared 2-core machine.'
].join('\n'))

await drain()
await Promise.all([service.stop(), bare.app.close()])
await db.destroy()
