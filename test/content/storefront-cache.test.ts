import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { base62 } from '../../src/lib/ids.js'
import { build, call, onMysql, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

/**
 * The storefront keeps its review answers in memory under the store's reviews marker (lib/freshness.ts), which
 * every write to the store's reviews moves after commit. These tests read, change, and read again at once: the
 * second read must show the change, on the instance that wrote it and on another one sharing Redis.
 */
async function setup (app: FastifyInstance) {
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  return { tenant, api }
}

function reader (app: FastifyInstance, storeId: string, origin = 'https://shop.example') {
  return async (url: string) => storefront(app, { method: 'GET', url: `/v1${url}`, store: storeId, origin })
}

async function publishedReview (app: FastifyInstance, storeId: string, authorName = 'Ada', authorEmail = 'ada@example.test') {
  const store = (await app.services.stores.find(storeId))!
  const { id } = await app.services.reviews.submit(store, { productId: 'p1', rating: 5, body: 'Fits well', authorName, authorEmail })
  await app.services.reviews.update(store, id, { status: 'published' })
  return id
}

t.test('a review published after a read is on the very next read of the page and the summary', async (t) => {
  const app = await sharedApp()
  const { tenant } = await setup(app)
  const read = reader(app, tenant.storeId)
  t.equal((await read('/storefront/reviews?productId=p1')).json().meta.total, 0)
  t.equal((await read('/storefront/summary?productId=p1')).json().count, 0)
  await publishedReview(app, tenant.storeId)
  t.equal((await read('/storefront/reviews?productId=p1')).json().meta.total, 1)
  t.equal((await read('/storefront/summary?productId=p1')).json().count, 1)
})

t.test('a helpful vote shows in the count of the next read', async (t) => {
  const app = await sharedApp()
  const { tenant } = await setup(app)
  const id = await publishedReview(app, tenant.storeId)
  const read = reader(app, tenant.storeId)
  t.equal((await read('/storefront/reviews?productId=p1')).json().data[0].helpfulCount, 0)
  const vote = await storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId })
  t.equal(vote.statusCode, 200)
  t.equal((await read('/storefront/reviews?productId=p1')).json().data[0].helpfulCount, 1)
})

t.test('an erased customer\'s name leaves the storefront page on the next read', async (t) => {
  const app = await sharedApp()
  const { tenant, api } = await setup(app)
  const email = `gone-${base62(10).toLowerCase()}@example.test`
  await api('PUT', '/customers', { customers: [{ platformCustomerId: 'c1', email }] })
  await publishedReview(app, tenant.storeId, 'Erased Shopper', email)
  const read = reader(app, tenant.storeId)
  t.equal((await read('/storefront/reviews?productId=p1')).json().data[0].authorName, 'Erased Shopper')
  const id = (await api('GET', `/customers?email=${email}`)).json().data[0].id
  t.equal((await api('DELETE', `/customers/${id}`)).statusCode, 204)
  t.equal((await read('/storefront/reviews?productId=p1')).json().data[0].authorName, 'Anonymous')
})

t.test('a change made through another instance sharing the database and Redis is seen on the next read', async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const web = await build(t, { redisPrefix })
  const worker = await build(t, { redisPrefix })
  const { tenant } = await setup(web)
  const read = reader(web, tenant.storeId)
  t.equal((await read('/storefront/summary?productId=p1')).json().count, 0)
  await publishedReview(worker, tenant.storeId)
  t.equal((await read('/storefront/summary?productId=p1')).json().count, 1)
})

t.test('an origin added to the store is served on the next read, and one removed is refused on the next read', async (t) => {
  const app = await sharedApp()
  const { tenant } = await setup(app)
  const origins = (list: string[]) =>
    call(app, { method: 'PUT', url: `/v1/account/stores/${tenant.storeId}/origins`, key: tenant.key, payload: { origins: list } })
  const fromShop = reader(app, tenant.storeId)
  const fromNew = reader(app, tenant.storeId, 'https://new.example')
  t.equal((await fromShop('/storefront/summary?productId=p1')).statusCode, 200)
  t.equal((await fromNew('/storefront/summary?productId=p1')).statusCode, 403)
  t.equal((await origins(['https://shop.example', 'https://new.example'])).statusCode, 200)
  const added = await fromNew('/storefront/summary?productId=p1')
  t.equal(added.statusCode, 200)
  t.equal(added.headers['access-control-allow-origin'], 'https://new.example')
  t.equal((await origins(['https://new.example'])).statusCode, 200)
  t.match((await fromShop('/storefront/summary?productId=p1')).json(), { code: 'origin_not_allowed' })
})

t.test('an unchanged marker answers from memory: a row edited behind the service is not seen until a write moves it', {
  skip: !onMysql && 'without Redis no marker is shared and nothing is kept'
}, async (t) => {
  const app = await sharedApp()
  const { tenant } = await setup(app)
  const id = await publishedReview(app, tenant.storeId, 'Before')
  const read = reader(app, tenant.storeId)
  const first = await read('/storefront/reviews?productId=p1')
  await app.db('reviews').where({ id }).update({ author_name: 'Behind' })
  const second = await read('/storefront/reviews?productId=p1')
  t.equal(second.json().data[0].authorName, 'Before')
  t.equal(second.headers.etag, first.headers.etag)
  await publishedReview(app, tenant.storeId, 'Another')
  t.same((await read('/storefront/reviews?productId=p1')).json().data.map((r: { authorName: string }) => r.authorName).sort(), [
    'Another',
    'Behind'
  ])
})

t.test('answers kept in memory stay per store: another store\'s product of the same id has its own', async (t) => {
  const app = await sharedApp()
  const a = await setup(app)
  const b = await setup(app)
  await publishedReview(app, a.tenant.storeId)
  t.equal((await reader(app, a.tenant.storeId)('/storefront/summary?productId=p1')).json().count, 1)
  t.equal((await reader(app, b.tenant.storeId)('/storefront/summary?productId=p1')).json().count, 0)
})
