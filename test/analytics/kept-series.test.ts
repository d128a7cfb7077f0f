import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, onMysql, sharedApp } from '../helper.js'
import { makeStore, makeTenant, type Tenant } from '../factories.js'
import { completedBackup } from '../backups/backup-app.js'
import { base62 } from '../../src/lib/ids.js'

/**
 * Review series are kept per instance under the store's reviews marker (lib/marked-cache.ts). Each test reads a
 * series, changes the reviews, and reads again at once: the second read must be exact.
 */
// Reviews are written now (the service's clock): the series runs from the start of last year to today, by month.
const TODAY = new Date().toISOString().slice(0, 10)
const RANGE = `/v1/analytics/reviews?from=${Number(TODAY.slice(0, 4)) - 1}-01-01&to=${TODAY}&interval=month`

async function setup (app: FastifyInstance) {
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  return tenant
}

const totals = async (app: FastifyInstance, tenant: Tenant) =>
  (await call(app, { url: RANGE, key: tenant.key, store: tenant.storeId })).json().totals

t.test('a review published after a series was read is counted on the next read', async (t) => {
  const app = await sharedApp()
  const tenant = await setup(app)
  t.same(await totals(app, tenant), { count: 0, averageRating: null })
  const store = (await app.services.stores.find(tenant.storeId))!
  const { id } = await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: 4,
    body: 'Good',
    authorName: 'Ann',
    authorEmail: 'ann@example.test'
  })
  await app.services.reviews.update(store, id, { status: 'published' })
  t.same(await totals(app, tenant), { count: 1, averageRating: 4 })
})

t.test('a deleted review leaves the series on the next read, also when another instance deleted it', async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const web = await build(t, { redisPrefix })
  const other = await build(t, { redisPrefix })
  const tenant = await setup(web)
  const store = (await web.services.stores.find(tenant.storeId))!
  const { id } = await web.services.reviews.submit(store, {
    productId: 'p1',
    rating: 2,
    body: 'Meh',
    authorName: 'Ann',
    authorEmail: 'ann@example.test'
  })
  await web.services.reviews.update(store, id, { status: 'published' })
  t.same(await totals(web, tenant), { count: 1, averageRating: 2 })
  t.equal((await call(other, { method: 'DELETE', url: `/v1/reviews/${id}`, key: tenant.key, store: tenant.storeId })).statusCode, 204)
  t.same(await totals(web, tenant), { count: 0, averageRating: null })
})

t.test('an unchanged marker answers from memory: a rollup edited behind the service is not seen until a write moves it', {
  skip: !onMysql && 'without Redis no marker is shared and nothing is kept'
}, async (t) => {
  const app = await sharedApp()
  const tenant = await setup(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  const publish = async (rating: number) => {
    const { id } = await app.services.reviews.submit(store, {
      productId: 'p1',
      rating,
      body: 'Fine',
      authorName: 'Ann',
      authorEmail: 'ann@example.test'
    })
    await app.services.reviews.update(store, id, { status: 'published' })
  }
  await publish(5)
  t.same(await totals(app, tenant), { count: 1, averageRating: 5 })
  for (const table of ['review_rollups', 'review_period_rollups']) {
    await app.db(table).where({ store_env_id: tenant.storeId, status: 'published' }).update({ n: 7 })
  }
  t.same(await totals(app, tenant), { count: 1, averageRating: 5 }, 'kept: nothing the service wrote has changed')
  await publish(5)
  t.equal((await totals(app, tenant)).count, 8, 'read again once a write moved the marker')
})

t.test('kept series stay per store and per query', async (t) => {
  const app = await sharedApp()
  const a = await setup(app)
  const b = await setup(app)
  const store = (await app.services.stores.find(a.storeId))!
  const { id } = await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: 3,
    body: 'Ok',
    authorName: 'Ann',
    authorEmail: 'ann@example.test'
  })
  await app.services.reviews.update(store, id, { status: 'published' })
  t.same(await totals(app, a), { count: 1, averageRating: 3 })
  t.same(await totals(app, b), { count: 0, averageRating: null })
  const pending = await call(app, { url: `${RANGE}&status=pending`, key: a.key, store: a.storeId })
  t.equal(pending.json().totals.count, 0)
})

t.test('a store that was read empty shows the restored reviews on the next read after a restore', async (t) => {
  const app = await sharedApp()
  const tenant = await setup(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  const { id } = await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: 4,
    body: 'Good',
    authorName: 'Ann',
    authorEmail: 'ann@example.test'
  })
  await app.services.reviews.update(store, id, { status: 'published' })
  const { backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  const onTarget = { ...tenant, storeId: target }
  t.same(await totals(app, onTarget), { count: 0, averageRating: null })
  t.equal(
    (await call(app, {
      method: 'POST',
      url: `/v1/backups/${backup.id}/restore`,
      key: tenant.key,
      store: tenant.storeId,
      payload: { targetStoreEnvId: target }
    })).statusCode,
    200
  )
  t.same(await totals(app, onTarget), { count: 1, averageRating: 4 })
})
