import t from 'tap'
import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, onMysql, sharedApp } from '../helper.js'
import { addMember, makeKey, makeStore, makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { EXCLUDED_TABLES, EXPORTED_TABLES, TENANT_COLUMNS } from '../../src/modules/backups/tables.js'
import { STALE_AFTER_MS } from '../../src/modules/backups/backups.service.js'

async function tablesWithStoreId (app: FastifyInstance): Promise<string[]> {
  const db = app.services.db
  if (onMysql) {
    const [rows] = await db.raw("SELECT TABLE_NAME AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = 'store_env_id'")
    return (rows as Array<{ t: string }>).map((r) => r.t).sort()
  }
  const tables = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table'")) as Array<{ name: string }>
  const out: string[] = []
  for (const { name } of tables) {
    const columns = (await db.raw(`PRAGMA table_info(${JSON.stringify(name)})`)) as Array<{ name: string }>
    if (columns.some((c) => c.name === 'store_env_id')) out.push(name)
  }
  return out.sort()
}

t.test('every table with a store_env_id column is either exported or excluded with a reason', async (t) => {
  const app = await sharedApp()
  const exported = new Set(EXPORTED_TABLES.map((spec) => spec.table))
  for (const table of await tablesWithStoreId(app)) {
    t.ok(exported.has(table) || (EXCLUDED_TABLES[table] ?? '').length > 10, `${table} is exported or excluded with a reason`)
    t.notOk(exported.has(table) && table in EXCLUDED_TABLES, `${table} is not in both lists`)
  }
})

const as = (app: FastifyInstance, tenant: Tenant, key = tenant.key) => (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) => call(app, { method, url, key, store: tenant.storeId, payload })

/** Products, orders with review requests, imported and storefront reviews, votes, and a webhook (with its secret). */
async function seedStore (app: FastifyInstance, tenant: Tenant) {
  const api = as(app, tenant)
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1', title: 'Shirt' }, { platformProductId: 'gift', excludedFromReviewRequests: true, exclusionReason: 'Gift card' }] })
  await api('PUT', '/v1/orders', {
    orders: [
      { platformOrderId: 'o1', customerEmail: 'ann@example.test', total: 10.5, currency: 'EUR', fulfilledAt: '2026-11-01T00:00:00Z', lineItems: [{ platformProductId: 'p1', quantity: 2 }] },
      { platformOrderId: 'o2', customerEmail: 'bo@example.test', fulfilledAt: '2026-11-01T00:00:00Z', lineItems: [{ platformProductId: 'gift', quantity: 1 }] }
    ]
  })
  await api('POST', '/v1/imports', { type: 'reviews', items: [{ productId: 'p1', orderId: 'o1', rating: 5, body: 'Great', authorName: 'Ann', authorEmail: 'ann@example.test', writtenAt: '2025-05-01T00:00:00Z' }, { productId: 'p1', rating: 2, body: 'Meh', authorName: 'Cy', writtenAt: '2025-06-01T00:00:00Z', status: 'pending' }] })
  const published = (await api('GET', '/v1/reviews?status=published')).json().data[0].id
  await storefront(app, { url: `/v1/reviews/${published}/helpful`, store: tenant.storeId, ip: '198.51.100.9' })
  await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: { productId: 'p1', rating: 4, body: 'Nice 😀', authorName: 'Dee', authorEmail: 'dee@example.test' } })
  const hook = await api('POST', '/v1/outbound-webhooks', { url: 'https://receiver.example/hook', events: ['*'] })
  return { webhookSecret: hook.json().secret as string }
}

async function completedBackup (app: FastifyInstance, tenant: Tenant) {
  const created = await as(app, tenant)('POST', '/v1/backups')
  await app.services.backups.runQueued(tenant.storeId)
  return { created, backup: (await as(app, tenant)('GET', `/v1/backups/${created.json().id}`)).json() }
}

/** A table's rows of one store as a backup compares them: without tenant ids and ids a restore renews. */
async function comparable (app: FastifyInstance, storeId: string) {
  const out: Record<string, string[]> = {}
  for (const spec of EXPORTED_TABLES) {
    const skip = [...TENANT_COLUMNS, ...(spec.drop ?? []), ...Object.keys(spec.newIds ?? {}), ...Object.keys(spec.refs ?? {})]
    const rows = await app.services.db(spec.table).where({ store_env_id: storeId })
    out[spec.table] = rows.map((row: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !skip.includes(k)).sort()))).sort()
  }
  // References that follow new ids still join: each vote to its review's body, each review to its import's size.
  const votes = await app.services.db('review_votes as v').join('reviews as r', 'r.id', 'v.review_id').where('v.store_env_id', storeId).select('r.body', 'v.voter_hash')
  const imported = await app.services.db('reviews as r').join('imports as i', 'i.id', 'r.import_id').where('r.store_env_id', storeId).select('r.body', 'i.received')
  out.joins = [...votes, ...imported].map((r) => JSON.stringify(r)).sort()
  return out
}

t.test('a backup restored into an empty store of the organization equals the source in every exported table', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { webhookSecret } = await seedStore(app, tenant)
  const { created, backup } = await completedBackup(app, tenant)
  t.equal(created.statusCode, 202)
  t.match(created.json(), { status: 'queued', size: null, checksum: null })
  t.match(backup, { status: 'completed', counts: { products: 2, orders: 2, imports: 1, reviews: 3, review_votes: 1 } })

  const download = await as(app, tenant)('GET', `/v1/backups/${backup.id}/download`)
  t.equal(download.statusCode, 200)
  t.equal(download.headers['content-type'], 'application/gzip')
  t.equal(createHash('sha256').update(download.rawPayload).digest('hex'), backup.checksum.value)
  t.equal(download.headers['x-checksum-sha256'], backup.checksum.value)
  t.equal(download.rawPayload.length, backup.size)
  const text = gunzipSync(download.rawPayload).toString()
  const lines = text.trim().split('\n').map((line) => JSON.parse(line))
  t.match(lines[0], { format: 'evidence-hub-backup', version: 1, backupId: backup.id, storeEnvId: tenant.storeId })
  t.same(lines.at(-1), { end: true, counts: backup.counts })
  t.notOk(text.includes(webhookSecret.slice(6)) || text.includes('secret_sealed') || text.includes('svc_'), 'no secret')

  const target = await makeStore(app, tenant)
  const restored = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  t.equal(restored.statusCode, 200, restored.body)
  t.same(restored.json().counts, backup.counts)
  t.same(await comparable(app, target), await comparable(app, tenant.storeId))
  const inTarget = as(app, { ...tenant, storeId: target })
  t.equal((await inTarget('GET', '/v1/reviews')).json().meta.total, 3, 'list totals rebuilt')
  const analytics = '/v1/analytics/reviews?from=2025-01-01&to=2026-12-31&interval=month'
  t.same((await inTarget('GET', analytics)).json(), (await as(app, tenant)('GET', analytics)).json(), 'analytics rebuilt')
  t.same((await inTarget('GET', '/v1/analytics/review-requests')).json(), (await as(app, tenant)('GET', '/v1/analytics/review-requests')).json())
})

t.test('restoring the same backup into the same store twice answers the first result and writes nothing more', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await seedStore(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  const first = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  const second = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  t.equal(second.statusCode, 200)
  t.same(second.json(), first.json())
  t.equal((await app.services.db('reviews').where({ store_env_id: target }).count({ n: '*' }))[0].n, 3)
})

t.test('a restore into a store with data, or a store of another organization, is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await seedStore(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  // A key of its own: seeding spent most of the first key's 10/s.
  const key = (await makeKey(app, tenant, 'admin')).secret
  const restore = (target: string) => as(app, tenant, key)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  const itself = await restore(tenant.storeId)
  t.equal(itself.statusCode, 409)
  t.equal(itself.json().code, 'conflict')
  const busy = await makeStore(app, tenant)
  await as(app, { ...tenant, storeId: busy }, key)('PUT', '/v1/products', { products: [{ platformProductId: 'other' }] })
  t.equal((await restore(busy)).json().code, 'conflict')
  const stranger = await makeTenant(app)
  const foreign = await restore(stranger.storeId)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().code, 'not_found')
  t.equal((await app.services.db('products').where({ store_env_id: stranger.storeId }).count({ n: '*' }))[0].n, 0)
  t.equal((await restore('env_' + 'x'.repeat(61))).statusCode, 400)
})

t.test('a backup not yet built cannot be downloaded or restored, and an unknown one is not found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const queued = (await as(app, tenant)('POST', '/v1/backups')).json()
  t.equal((await as(app, tenant)('GET', `/v1/backups/${queued.id}/download`)).json().code, 'conflict')
  const target = await makeStore(app, tenant)
  t.equal((await as(app, tenant)('POST', `/v1/backups/${queued.id}/restore`, { targetStoreEnvId: target })).json().code, 'conflict')
  t.equal((await as(app, tenant)('GET', '/v1/backups/bkp_nope')).json().code, 'not_found')
  const list = (await as(app, tenant)('GET', '/v1/backups?limit=500')).json()
  t.same(list.meta, { total: 1, page: 1, limit: 100, totalPages: 1 })
  t.equal((await as(app, tenant)('GET', '/v1/backups?updatedSince=0000-01-01T00:00:00Z')).statusCode, 400)
})

t.test('backups are for owners and admins of the store\'s organization only', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { backup } = await completedBackup(app, tenant)
  for (const role of ['editor', 'viewer'] as const) {
    const key = (await makeKey(app, tenant, role)).secret
    t.equal((await as(app, tenant, key)('GET', '/v1/backups')).json().code, 'role_forbidden', role)
  }
  const stranger = await makeTenant(app)
  t.equal((await call(app, { method: 'GET', url: `/v1/backups/${backup.id}`, key: stranger.key, store: tenant.storeId })).json().code, 'store_env_not_found')
  t.equal((await call(app, { method: 'GET', url: `/v1/backups/${backup.id}/download`, key: stranger.key, store: stranger.storeId })).json().code, 'not_found')
  t.ok(await addMember(app, tenant, 'admin'))
})

t.test('a backup left running by a vanished instance is taken over after 30 minutes, and built once', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const created = (await as(app, tenant)('POST', '/v1/backups')).json()
  const ghost = await app.services.repos.backups.claim('ghost-runner', clock(), clock() - STALE_AFTER_MS, tenant.storeId)
  t.equal(ghost?.id, created.id)
  t.equal(await app.services.backups.runQueued(tenant.storeId), 0, 'another runner holds it')
  clock.advance(STALE_AFTER_MS + 1)
  const [a, b] = await Promise.all([app.services.backups.runQueued(tenant.storeId), app.services.backups.runQueued(tenant.storeId)])
  t.equal(a + b, 1, 'two runners build it once')
  t.equal((await as(app, tenant)('GET', `/v1/backups/${created.id}`)).json().status, 'completed')
  t.notOk(await app.services.repos.backups.finish(created.id, 'ghost-runner', { status: 'failed' }), 'the vanished runner cannot finish it late')
  const updates = await app.services.db('events').where({ store_env_id: tenant.storeId, type: 'backup.updated' }).count({ n: '*' })
  t.equal(Number(updates[0].n), 1)
})
