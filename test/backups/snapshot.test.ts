import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, onMysql, sharedApp } from '../helper.js'
import { makeStore, makeTenant, type Tenant } from '../factories.js'
import { base62 } from '../../src/lib/ids.js'
import { EXPORTED_TABLES } from '../../src/modules/backups/tables.js'
import { as, backupLines, completedBackup } from './backup-app.js'

/**
 * A backup is the store at one moment: the export reads every table in one read transaction, a page of 1,000 rows
 * at a time after the last row read (not by OFFSET, which a row written meanwhile shifts), and a restore of it
 * answers 200 whatever was written while it ran.
 */

/** 1,001 products `p0000`…`p1000` straight into the store: one more than a page of the export. */
async function pageAndOneProducts (app: FastifyInstance, tenant: Tenant) {
  const now = Date.now()
  const rows = Array.from(
    { length: 1001 },
    (_, i) => ({
      org_id: tenant.orgId,
      store_env_id: tenant.storeId,
      platform_product_id: `p${String(i).padStart(4, '0')}`,
      excluded_from_review_requests: false,
      created_at: now,
      updated_at: now
    })
  )
  for (let i = 0; i < rows.length; i += 100) await app.db('products').insert(rows.slice(i, i + 100))
}

/**
 * Runs `write` once the export has read its first page of the store's `table` (as the platform sync or another
 * request would, on a connection of its own); returns what tells whether it ran and when it is done.
 */
function duringExportOf (app: FastifyInstance, tenant: Tenant, table: string, write: () => PromiseLike<unknown>) {
  const state = { fired: false, done: Promise.resolve() as PromiseLike<unknown> }
  const pattern = new RegExp(`from [\`"]${table}[\`"]`)
  const onResponse = (_response: unknown, query: { sql: string, bindings?: unknown[] }) => {
    if (state.fired || !pattern.test(query.sql) || !/limit/i.test(query.sql) || !(query.bindings ?? []).includes(tenant.storeId)) return
    state.fired = true
    // Sent now (a query builder runs once something waits on it), while the export goes on.
    state.done = write().then(() => {})
  }
  app.db.on('query-response', onResponse)
  return { state, stop: () => app.db.off('query-response', onResponse) }
}

const product = (tenant: Tenant, id: string) => ({
  org_id: tenant.orgId,
  store_env_id: tenant.storeId,
  platform_product_id: id,
  excluded_from_review_requests: false,
  created_at: Date.now(),
  updated_at: Date.now()
})
const restore = (app: FastifyInstance, tenant: Tenant, backupId: string, target: string) =>
  as(app, tenant)('POST', `/v1/backups/${backupId}/restore`, { targetStoreEnvId: target })

t.test('a backup taken while a product is written holds each product once, and restores', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  await pageAndOneProducts(app, tenant)
  // 'a-new' sorts before every product: by OFFSET, it pushed the first page's last product into the second page.
  const hook = duringExportOf(app, tenant, 'products', () => app.db('products').insert(product(tenant, 'a-new')))
  const { backup } = await completedBackup(app, tenant)
  hook.stop()
  await hook.state.done
  t.ok(hook.state.fired, 'the write happened during the export')
  t.equal(backup.status, 'completed')

  const keys = (await backupLines(app, backup.id)).filter((l) => l.table === 'products').map((l) => l.row.platform_product_id as string)
  t.equal(new Set(keys).size, keys.length, 'no product is in the file twice')
  t.equal(keys.length, backup.counts.products)
  const target = await makeStore(app, tenant)
  const restored = await restore(app, tenant, backup.id, target)
  t.equal(restored.statusCode, 200, restored.body)
  t.equal(restored.json().counts.products, keys.length)
})

t.test('a backup holds the store as it was when its export began: rows written or deleted meanwhile change none of its tables', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  await pageAndOneProducts(app, tenant)
  const now = Date.now()
  // While the first page of products is read: a product after it, a product of the second page deleted, and an order
  // (a table the export reads later).
  const hook = duringExportOf(app, tenant, 'products', () =>
    Promise.all([
      app.db('products').insert(product(tenant, 'zz-new')),
      app.db('products').where({ store_env_id: tenant.storeId, platform_product_id: 'p1000' }).delete(),
      app.db('orders').insert({
        org_id: tenant.orgId,
        store_env_id: tenant.storeId,
        platform_order_id: 'o-new',
        line_items: '[]',
        created_at: now,
        updated_at: now
      })
    ]))
  const { backup } = await completedBackup(app, tenant)
  hook.stop()
  await hook.state.done
  t.ok(hook.state.fired, 'the writes happened during the export')
  const source = await app.db('products').where({ store_env_id: tenant.storeId }).pluck('platform_product_id')
  t.ok(source.includes('zz-new') && !source.includes('p1000'), 'the writes are in the store')
  t.equal((await app.db('orders').where({ store_env_id: tenant.storeId })).length, 1)

  const lines = await backupLines(app, backup.id)
  const keys = lines.filter((l) => l.table === 'products').map((l) => l.row.platform_product_id as string)
  t.equal(keys.length, 1001)
  t.ok(keys.includes('p1000'), 'the product deleted meanwhile is in it')
  t.notOk(keys.includes('zz-new'), 'the product written meanwhile is not')
  t.same(lines.filter((l) => l.table === 'orders'), [], 'nor the order')
  t.match(backup.counts, { products: 1001, orders: 0 })
  const target = await makeStore(app, tenant)
  t.equal((await restore(app, tenant, backup.id, target)).statusCode, 200)
  t.equal((await app.db('products').where({ store_env_id: target })).length, 1001)
})

t.test('more than a page of categories created in the same millisecond are each exported once (by creation time, then id)', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const now = Date.now()
  const rows = Array.from(
    { length: 1203 },
    (_, i) => ({
      org_id: tenant.orgId,
      store_env_id: tenant.storeId,
      id: `cat_${base62(20)}`,
      name: `C${i}`,
      slug: `c${i}`,
      created_at: i < 3 ? now - 1 : now,
      updated_at: now
    })
  )
  for (let i = 0; i < rows.length; i += 100) await app.db('categories').insert(rows.slice(i, i + 100))
  const { backup } = await completedBackup(app, tenant)
  const exported = (await backupLines(app, backup.id)).filter((l) => l.table === 'categories').map((l) => l.row)
  t.equal(exported.length, 1203)
  t.equal(new Set(exported.map((row) => row.id)).size, 1203, 'each once')
  t.same(exported.slice(0, 3).map((row) => row.slug).sort(), ['c0', 'c1', 'c2'], 'the older ones first')
})

/** Each unique key (the primary key included) of `table`, as its columns. */
async function uniqueKeys (app: FastifyInstance, table: string): Promise<string[][]> {
  const db = app.services.db
  if (onMysql) {
    const [rows] = await db.raw(
      'SELECT INDEX_NAME AS k, COLUMN_NAME AS c FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY SEQ_IN_INDEX',
      [table]
    )
    const keys = new Map<string, string[]>()
    for (const { k, c } of rows as Array<{ k: string, c: string }>) keys.set(k, [...keys.get(k) ?? [], c])
    return [...keys.values()]
  }
  const columns = (await db.raw(`PRAGMA table_info(${JSON.stringify(table)})`)) as Array<{ name: string, pk: number }>
  const keys = [columns.filter((c) => c.pk > 0).map((c) => c.name)]
  for (const index of (await db.raw(`PRAGMA index_list(${JSON.stringify(table)})`)) as Array<{ name: string, unique: number }>) {
    if (index.unique) {
      keys.push(((await db.raw(`PRAGMA index_info(${JSON.stringify(index.name)})`)) as Array<{ name: string }>).map((c) => c.name))
    }
  }
  return keys.filter((key) => key.length > 0)
}

t.test('every exported table is ordered by a unique key of the store\'s rows, which the export pages by', async (t) => {
  const app = await sharedApp()
  for (const spec of EXPORTED_TABLES) {
    const order = new Set(['store_env_id', ...spec.orderBy])
    t.ok(
      (await uniqueKeys(app, spec.table)).some((key) => key.every((column) => order.has(column))),
      `${spec.table} by ${spec.orderBy.join(', ')}`
    )
  }
})
