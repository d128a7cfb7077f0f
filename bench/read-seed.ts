/**
 * Seeding for bench/read-path.ts: one store with 1,000,000 reviews and 1,000,000 events, written with multi-row
 * INSERTs straight through knex (the API would take hours), then the review tallies recomputed for the store.
 * Kept between runs: a second run finds the store and seeds only what is missing.
 */
import type { Knex } from 'knex'
import type { Services } from '../src/services.js'
import { base62, newId } from '../src/lib/ids.js'
import { sha256 } from '../src/lib/secrets.js'

export const REVIEWS = Number(process.env.BENCH_REVIEWS ?? 1_000_000)
export const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const BATCH = 5_000
const STORE_NAME = 'Bench read-path store'
/** 1,000 reviews per product; one review per order. */
export const PRODUCTS = REVIEWS / 1_000

export interface Seeded { orgId: string, storeId: string, ownerId: string }

export async function seedStore (services: Services): Promise<Seeded> {
  const { db } = services
  const existing = await db('store_envs').where({ name: STORE_NAME }).first('id', 'org_id')
  if (existing) {
    const owner = await db('memberships').where({ org_id: existing.org_id, role: 'owner' }).first('person_id')
    return { orgId: existing.org_id, storeId: existing.id, ownerId: owner.person_id }
  }
  const out = await services.bootstrap.bootstrap({
    org: 'Bench read path',
    store: STORE_NAME,
    owner: `bench-${base62(8).toLowerCase()}@example.test`
  })
  await services.bootstrap.setPlan({ store: out.store.id, plan: 'pro' })
  return { orgId: out.organization.id, storeId: out.store.id, ownerId: out.owner.id }
}

async function timed (label: string, work: () => Promise<void>) {
  const started = Date.now()
  await work()
  console.log(`${label} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

export async function seedReviews (db: Knex, { orgId, storeId }: Seeded): Promise<void> {
  const [{ n }] = await db('reviews').where({ store_env_id: storeId }).count<Array<{ n: number }>>({ n: '*' })
  if (Number(n) >= REVIEWS) return
  await timed(`seeded ${REVIEWS - Number(n)} reviews`, async () => {
    const base = Date.parse('2020-01-01T00:00:00Z')
    for (let from = Number(n); from < REVIEWS; from += BATCH) {
      const rows = []
      for (let i = from; i < Math.min(REVIEWS, from + BATCH); i++) {
        const at = base + i * 60_000
        rows.push({
          id: `rev_${String(i).padStart(8, '0')}${base62(6)}`,
          org_id: orgId,
          store_env_id: storeId,
          product_id: `p${i % PRODUCTS}`,
          order_id: `o${i}`,
          rating: (i % 5) + 1,
          title: null,
          body: `Review ${i}`,
          author_name: 'Bench',
          author_email: null,
          verified: i % 3 === 0,
          status: i % 4 === 0 ? 'pending' : i % 10 === 1 ? 'rejected' : 'published',
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
      await db('reviews').insert(rows)
    }
    // The tallies the API keeps in each write's transaction, recomputed once for rows written around it.
    await db('review_tallies').where({ store_env_id: storeId }).delete()
    await db.raw(
      'INSERT INTO review_tallies (store_env_id, status, rating, verified, n) SELECT store_env_id, status, rating, verified, COUNT(*) FROM reviews WHERE store_env_id = ? GROUP BY store_env_id, status, rating, verified',
      [storeId]
    )
  })
}

const TYPES = ['review.created', 'order.created', 'product.updated', 'review.published']

export async function seedEvents (db: Knex, { orgId, storeId }: Seeded): Promise<void> {
  const [{ n }] = await db('events').where({ store_env_id: storeId }).count<Array<{ n: number }>>({ n: '*' })
  if (Number(n) >= EVENTS) return
  await timed(`seeded ${EVENTS - Number(n)} events`, async () => {
    const base = Date.parse('2020-01-01T00:00:00Z')
    for (let from = Number(n); from < EVENTS; from += BATCH) {
      const rows = []
      for (let i = from; i < Math.min(EVENTS, from + BATCH); i++) {
        rows.push({
          org_id: orgId,
          store_env_id: storeId,
          seq: i + 1,
          type: TYPES[i % TYPES.length],
          data: JSON.stringify({ id: `rev_${i}`, rating: (i % 5) + 1, body: `Review ${i}` }),
          created_at: base + i * 1000
        })
      }
      await db('events').insert(rows)
    }
    await db('event_heads').insert({ store_env_id: storeId, seq: EVENTS }).onConflict('store_env_id').merge()
  })
}

/** Fresh viewer keys for this run (their budgets start empty), first use already recorded. */
export async function seedKeys (db: Knex, { orgId }: Seeded, count: number): Promise<string[]> {
  const secrets: string[] = []
  const rows = []
  const now = Date.now()
  for (let i = 0; i < count; i++) {
    const secret = `svc_${base62(40)}`
    secrets.push(secret)
    rows.push({
      id: newId('key'),
      org_id: orgId,
      name: `bench ${i}`,
      role: 'viewer',
      scopes: '[]',
      prefix: secret.slice(4, 12),
      secret_hash: sha256(secret),
      created_at: now,
      first_used_at: now,
      last_used_at: now
    })
  }
  for (let i = 0; i < rows.length; i += 1000) await db('api_keys').insert(rows.slice(i, i + 1000))
  return secrets
}
