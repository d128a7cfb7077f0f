import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { base62 } from '../../src/lib/ids.js'
import { build, call, onMysql, statementsOf, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

/**
 * GET /v1/reviews keeps its pages in memory under the store's reviews marker, which every write to the store's
 * reviews moves after commit, and reads the marker in the request's own limiter call. These tests read, write and
 * read again at once: the second read must show the write, on the instance that made it and on another one.
 */
async function setup (app: FastifyInstance) {
  const tenant = await makeTenant(app)
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  return { tenant, api }
}

async function submitted (app: FastifyInstance, storeId: string, authorName = 'Ada') {
  const store = (await app.services.stores.find(storeId))!
  return (await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: 4,
    body: 'Fits well',
    authorName,
    authorEmail: 'ada@example.test'
  })).id
}

t.test('a review submitted after a list is in the total and the page of the next list', async (t) => {
  const app = await sharedApp()
  const { tenant, api } = await setup(app)
  t.equal((await api('GET', '/reviews')).json().meta.total, 0)
  await submitted(app, tenant.storeId)
  const next = (await api('GET', '/reviews')).json()
  t.equal(next.meta.total, 1)
  t.equal(next.data.length, 1)
})

t.test('a status change and a reply made through the API are on the next list', async (t) => {
  const app = await sharedApp()
  const { tenant, api } = await setup(app)
  const id = await submitted(app, tenant.storeId)
  t.equal((await api('GET', '/reviews?status=published')).json().meta.total, 0)
  t.equal((await api('PATCH', `/reviews/${id}`, { status: 'published', reply: 'Thank you' })).statusCode, 200)
  const next = (await api('GET', '/reviews?status=published')).json()
  t.equal(next.meta.total, 1)
  t.equal(next.data[0].reply.body, 'Thank you')
})

t.test('a deleted review leaves the next list', async (t) => {
  const app = await sharedApp()
  const { tenant, api } = await setup(app)
  const id = await submitted(app, tenant.storeId)
  t.equal((await api('GET', '/reviews')).json().meta.total, 1)
  t.equal((await api('DELETE', `/reviews/${id}`)).statusCode, 204)
  t.equal((await api('GET', '/reviews')).json().meta.total, 0)
})

t.test('a review written through another instance sharing the database and Redis is on the next list', async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const web = await build(t, { redisPrefix })
  const worker = await build(t, { redisPrefix })
  const { tenant, api } = await setup(web)
  t.equal((await api('GET', '/reviews')).json().meta.total, 0)
  await submitted(worker, tenant.storeId)
  t.equal((await api('GET', '/reviews')).json().meta.total, 1)
})

t.test('pages are kept per store and per query: another store and another filter have their own', async (t) => {
  const app = await sharedApp()
  const a = await setup(app)
  const b = await setup(app)
  await submitted(app, a.tenant.storeId)
  t.equal((await a.api('GET', '/reviews')).json().meta.total, 1)
  t.equal((await b.api('GET', '/reviews')).json().meta.total, 0)
  t.equal((await a.api('GET', '/reviews?rating=5')).json().meta.total, 0)
  t.equal((await a.api('GET', '/reviews?rating=4')).json().meta.total, 1)
})

t.test('an unchanged marker answers from memory: a row edited behind the service is not seen until a write moves it', {
  skip: !onMysql && 'without Redis no marker is shared and nothing is kept'
}, async (t) => {
  const app = await sharedApp()
  const { tenant, api } = await setup(app)
  const id = await submitted(app, tenant.storeId, 'Before')
  t.equal((await api('GET', '/reviews')).json().data[0].authorName, 'Before')
  await app.db('reviews').where({ id }).update({ author_name: 'Behind' })
  t.equal((await api('GET', '/reviews')).json().data[0].authorName, 'Before')
  await submitted(app, tenant.storeId, 'Another')
  t.same((await api('GET', '/reviews')).json().data.map((r: { authorName: string }) => r.authorName).sort(), ['Another', 'Behind'])
})

t.test('lists that miss the same page together share one read of it', {
  skip: !onMysql && 'without Redis no marker is shared and nothing is kept'
}, async (t) => {
  const app = await build(t)
  const { tenant, api } = await setup(app)
  await submitted(app, tenant.storeId)
  t.equal((await api('GET', '/reviews')).json().meta.total, 1)
  const reads = statementsOf(t, app, /from [`"]reviews[`"]/i)
  await submitted(app, tenant.storeId, 'Second')
  t.equal((await api('GET', '/reviews')).json().meta.total, 2)
  const alone = reads.length
  t.ok(alone > 0, 'a list after a write reads the reviews')
  await submitted(app, tenant.storeId, 'Third')
  const together = await Promise.all(Array.from({ length: 5 }, () => api('GET', '/reviews')))
  t.same(together.map((res) => [res.statusCode, res.json().meta?.total]), Array(5).fill([200, 3]))
  t.equal(reads.length - alone, alone, 'five lists at once read as much as one')
})
