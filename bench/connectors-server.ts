/**
 * The server side of `npm run bench:connectors`, in its own process so autocannon does not share its event loop:
 * a store with 1,000,000 events (seeded once into bench/.data, or BENCH_DATABASE_URL), the real app on one port
 * and bench/lib.ts's bare fastify route on another. Reports { appUrl, bareUrl, storeId, keys, targets } to the parent over IPC.
 */
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { validateConfig } from '../src/config.js'
import { createKnex, isMysql, migrateLatest } from '../src/db.js'
import { systemClock } from '../src/lib/clock.js'
import { buildServices, type Services } from '../src/services.js'
import { bareServer } from './lib.js'

export const EVENT_COUNT = Number(process.env.BENCH_EVENTS ?? 1_000_000)
/** Per-credential limits are 50 per 10 s: enough keys that the run measures the endpoint, never a 429. */
const KEY_COUNT = Number(process.env.BENCH_KEYS ?? 3000)

/** Roughly a store's mix: orders and reviews dominate, loyalty is rare. */
const MIX: Array<[string, number]> = [
  ['order.upserted', 0.32], ['review.created', 0.25], ['product.upserted', 0.15], ['review.published', 0.12],
  ['order.review_request.updated', 0.1], ['review.updated', 0.04], ['review.deleted', 0.01], ['loyalty.birthday_reward', 0.005],
  ['loyalty.referral_reward', 0.005]
]

function typeAt (i: number): string {
  let x = ((i * 2654435761) % 1000) / 1000
  for (const [type, share] of MIX) {
    if (x < share) return type
    x -= share
  }
  return MIX[0][0]
}

function dataFor (type: string, i: number): Record<string, unknown> {
  if (type.startsWith('review.')) {
    return {
      id: `rev_${i.toString(36).padStart(10, '0')}`,
      productId: `sku-${i % 5000}`,
      orderId: `${100000 + (i % 90000)}`,
      rating: 1 + (i % 5),
      title: 'Great fit',
      authorName: 'Maya R.',
      authorEmailLast4: '.com',
      verified: i % 3 !== 0,
      status: 'published',
      writtenAt: new Date(1_750_000_000_000 + i * 1000).toISOString()
    }
  }
  if (type.startsWith('order.')) {
    return {
      platformOrderId: `${100000 + (i % 90000)}`,
      customerName: 'Maya Roberts',
      total: 20 + (i % 200),
      currency: 'EUR',
      reviewRequest: { state: 'scheduled', reason: null, scheduledFor: null }
    }
  }
  if (type === 'product.upserted') {
    return { platformProductId: `sku-${i % 5000}`, title: `Product ${i % 5000}`, url: `https://shop.example/p/${i % 5000}` }
  }
  return { customerEmail: `member${i % 1000}@example.com`, points: 200, balance: 1000 + (i % 500) }
}

async function seed ({ db, bootstrap }: Pick<Services, 'db' | 'bootstrap'>): Promise<{ orgId: string, storeId: string }> {
  const existing = await db('store_envs').where({ name: 'Bench store' }).first()
  if (existing) {
    const [{ n }] = await db('events').where({ store_env_id: existing.id }).count<Array<{ n: number }>>({ n: '*' })
    if (Number(n) >= EVENT_COUNT) return { orgId: existing.org_id, storeId: existing.id }
    await db('organizations').where({ id: existing.org_id }).delete()
  }
  const out = await bootstrap.bootstrap({
    org: 'Bench org',
    store: 'Bench store',
    owner: `bench-${Date.now()}@example.test`,
    plan: 'pro',
    origins: []
  })
  const orgId = out.organization.id
  const storeId = out.store.id
  const start = Date.now() - EVENT_COUNT * 10
  // SQLite takes at most 500 rows in one multi-row insert (knex writes it as a compound SELECT).
  const BATCH = isMysql(db) ? 2000 : 400
  for (let from = 0; from < EVENT_COUNT; from += BATCH * 50) {
    await db.transaction(async (trx) => {
      for (let offset = from; offset < Math.min(from + BATCH * 50, EVENT_COUNT); offset += BATCH) {
        const rows = []
        for (let i = offset; i < Math.min(offset + BATCH, EVENT_COUNT); i++) {
          const type = typeAt(i)
          rows.push({
            org_id: orgId,
            store_env_id: storeId,
            seq: i + 1,
            type,
            data: JSON.stringify(dataFor(type, i)),
            created_at: start + i * 10
          })
        }
        await trx('events').insert(rows)
      }
    })
    process.stderr.write(`\rseeded ${Math.min(from + BATCH * 50, EVENT_COUNT)} events`)
  }
  await db('event_heads').insert({ store_env_id: storeId, seq: EVENT_COUNT }).onConflict('store_env_id').merge()
  process.stderr.write('\n')
  return { orgId, storeId }
}

async function makeKeys ({ db, apiKeys: service }: Pick<Services, 'db' | 'apiKeys'>, orgId: string): Promise<string[]> {
  await db('api_keys').where({ org_id: orgId }).delete()
  const keys: string[] = []
  for (let i = 0; i < KEY_COUNT; i++) {
    keys.push(
      (await service.create({ type: 'cli', orgId, role: 'viewer', scopes: ['reviews:read', 'events:read', 'outbound-webhooks:read'] }, {
        name: `bench ${i}`,
        role: 'viewer',
        scopes: ['reviews:read', 'events:read', 'outbound-webhooks:read']
      }, null)).secret
    )
  }
  return keys
}

async function main () {
  const dataDir = join(import.meta.dirname, '.data', 'connectors')
  const config = validateConfig({
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
    redisUrl: process.env.BENCH_REDIS_URL || undefined,
    dataDir,
    logLevel: 'silent',
    trustProxy: false,
    secretKey: 'bench-secret-key-bench-secret-key-0123456789',
    webhookAllowPrivate: true,
    mailFrom: 'Evidence Hub <no-reply@localhost>',
    reviewRequestDelayHours: 72,
    workers: false
  })
  const db = createKnex(config)
  await migrateLatest(db)
  const services = buildServices({ db, clock: systemClock, config, redis: null })
  const { orgId, storeId } = await seed(services)
  const keys = await makeKeys(services, orgId)

  const app = await buildApp(config, { db, services, logger: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const bare = await bareServer()

  const targets: Record<string, string> = { polling: '/v1/connectors/triggers/review.created' }
  if (app.hasRoute({ method: 'GET', url: '/v1/outbound-webhooks/events' })) targets.cursor = '/v1/outbound-webhooks/events'
  const { port } = app.server.address() as { port: number }
  process.send!({
    appUrl: `http://127.0.0.1:${port}`,
    bareUrl: bare.url,
    storeId,
    keys,
    targets,
    events: EVENT_COUNT,
    database: config.databaseUrl ? 'MariaDB' : 'SQLite'
  })
  process.on('disconnect', () => {
    Promise.all([app.close(), bare.app.close()]).then(() => db.destroy()).finally(() => process.exit(0))
  })
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
