/**
 * Issue 47, point 8: the helpers read a large store to the end under the per-key rate limit (10 a second, 50 in 10
 * seconds, 200 a minute, as in production), waiting out each 429's Retry-After. The store is seeded with multi-row
 * INSERTs (as bench/read-seed.ts does); the calls go over HTTP to a listening app.
 *
 * Time is the app's clock, which moves only when the SDK waits: its `sleep` advances the clock by the wait instead of
 * sleeping. So the limiter sees every wait exactly as long as the SDK made it, a retry sent before its Retry-After
 * would be refused again (and the call would give up after five attempts), and the minute of real waiting that
 * 300 requests need under these windows takes no time at all.
 *
 * bundle-weight: 8
 */
import t from 'tap'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { build, manualClock } from '../../test/helper.js'
import { makeTenant, type Tenant } from '../../test/factories.js'
import { takeEventSeqs } from '../../src/modules/events/events.repository.js'
import { createClient, eventCursor, paginate, type RetryEvent } from '../src/index.js'

const REVIEWS = 10_000
const EVENTS = 20_000
/** Rows per INSERT: knex writes SQLite's as a compound SELECT, of at most 500 terms. */
const BATCH = 400

async function seedReviews (app: FastifyInstance, tenant: Tenant, count: number): Promise<string[]> {
  const ids: string[] = []
  const rows = []
  const base = Date.parse('2025-01-01T00:00:00Z')
  for (let i = 0; i < count; i++) {
    const at = base + i * 60_000
    const id = `rev_large${String(i).padStart(6, '0')}`
    ids.push(id)
    rows.push({
      id,
      org_id: tenant.orgId,
      store_env_id: tenant.storeId,
      product_id: `p${i % 100}`,
      order_id: `o${i}`,
      rating: (i % 5) + 1,
      title: null,
      body: `Review ${i}`,
      author_name: 'Seeded',
      author_email: null,
      verified: i % 3 === 0,
      status: 'published',
      helpful_count: 0,
      media: '[]',
      source: 'import',
      reply: null,
      replied_at: null,
      import_id: null,
      written_at: at,
      created_at: at,
      updated_at: at
    })
  }
  await app.db.batchInsert('reviews', rows, BATCH)
  // The tallies every review write keeps in its transaction (the lists' totals), recomputed once for the rows above.
  await app.db('review_tallies').where({ store_env_id: tenant.storeId }).delete()
  await app.db.raw(
    'INSERT INTO review_tallies (store_env_id, status, rating, verified, n) ' +
      'SELECT store_env_id, status, rating, verified, COUNT(*) FROM reviews WHERE store_env_id = ? GROUP BY store_env_id, status, rating, verified',
    [tenant.storeId]
  )
  return ids
}

/** `count` events at the end of the store's log, their numbers taken as an append takes them; their ids in order. */
async function seedEvents (app: FastifyInstance, tenant: Tenant, count: number): Promise<string[]> {
  const head = await app.db.transaction((trx) => takeEventSeqs(trx, tenant.storeId, count))
  const first = head - count + 1
  const now = Date.now()
  const rows = Array.from({ length: count }, (_, i) => ({
    org_id: tenant.orgId,
    store_env_id: tenant.storeId,
    seq: first + i,
    type: i % 2 === 0 ? 'review.created' : 'product.upserted',
    data: JSON.stringify({ id: `rev_${i}` }),
    created_at: now
  }))
  await app.db.batchInsert('events', rows, BATCH)
  return Array.from({ length: count }, (_, i) => `evt_${first + i}`)
}

t.test('paginate yields 10,000 reviews and eventCursor 20,000 events through the per-key limit, waiting out every 429', async (t) => {
  const clock = manualClock(Date.now())
  const app = await build(t, { clock })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const tenant = await makeTenant(app)
  const reviewIds = await seedReviews(app, tenant, REVIEWS)
  const eventIds = await seedEvents(app, tenant, EVENTS)

  const answers: Array<{ status: number, retryAfter: string | null }> = []
  const retries: RetryEvent[] = []
  const api = createClient({
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    apiKey: tenant.key,
    storeEnvId: tenant.storeId,
    fetch: async (request) => {
      const response = await fetch(request)
      answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') })
      return response
    },
    retry: {
      sleep: async (ms) => { clock.advance(ms) },
      onRetry: (retry) => { retries.push(retry) }
    }
  })

  const reviews: string[] = []
  for await (const review of paginate(api, '/v1/reviews', { limit: 100 })) reviews.push(review.id)
  t.equal(reviews.length, REVIEWS, 'every review')
  t.same(new Set(reviews), new Set(reviewIds), 'each one once')

  let events = 0
  let inOrder = true
  for await (const event of eventCursor(api)) inOrder = inOrder && event.id === eventIds[events++]
  t.equal(events, EVENTS, 'every event, at the default 100 a page')
  t.ok(inOrder, 'oldest first, none skipped or repeated')

  const refused = answers.filter((answer) => answer.status === 429)
  t.equal(answers.length, 100 + 200 + refused.length, 'one request a page, plus one per 429')
  t.ok(refused.length > 0, 'the limit refused some pages')
  t.same(new Set(answers.map((answer) => answer.status)), new Set([200, 429]))
  t.equal(retries.length, refused.length, 'each 429 retried once')
  t.ok(
    retries.every((retry, i) => retry.status === 429 && retry.delayMs >= Number(refused[i].retryAfter) * 1000),
    'each wait at least its Retry-After'
  )
  const longest = Math.max(...refused.map((answer) => Number(answer.retryAfter)))
  t.ok(longest > 10, `the minute's window refused too (Retry-After up to ${longest} s)`)
})
