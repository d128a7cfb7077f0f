import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { base62 } from '../../src/lib/ids.js'
import { build, call, onMysql, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { appendEvent } from '../webhooks/support.js'

/**
 * The event log's pages and the connector polls are kept in memory under the store's events marker, which every
 * append moves after commit. A poll at the head of the log, the common case, then costs no query; these tests show
 * that an event appended after a read is on the very next read, on this instance and on another one.
 */
function reader (app: FastifyInstance, tenant: Tenant) {
  return async (url: string) => (await call(app, { url: `/v1${url}`, key: tenant.key, store: tenant.storeId })).json()
}

t.test('an event appended after a read at the head of the log is on the next read of /events and /outbound-webhooks/events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const read = reader(app, tenant)
  const head = (await read('/events')).events.at(-1)?.id ?? ''
  t.same((await read(`/events?since=${head}`)).events, [])
  t.same((await read(`/outbound-webhooks/events?since=${head}`)).events, [])
  const appended = await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  t.same((await read(`/events?since=${head}`)).events.map((e: { id: string }) => e.id), [appended.id])
  t.same((await read(`/outbound-webhooks/events?since=${head}`)).events.map((e: { id: string }) => e.id), [appended.id])
})

t.test('a connector poll shows an event appended after the previous poll', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const read = reader(app, tenant)
  t.same(await read('/connectors/triggers/review.created'), [])
  await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  t.equal((await read('/connectors/triggers/review.created')).length, 1)
})

t.test('an event appended through another instance sharing the database and Redis is on the next read', async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const web = await build(t, { redisPrefix })
  const worker = await build(t, { redisPrefix })
  const tenant = await makeTenant(web)
  const read = reader(web, tenant)
  t.same(await read('/connectors/triggers/review.created'), [])
  const before = (await read('/events')).events.length
  await appendEvent(worker, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  t.equal((await read('/connectors/triggers/review.created')).length, 1)
  t.equal((await read('/events')).events.length, before + 1)
})

t.test('a review written through the API is in the next poll of review.created', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const read = reader(app, tenant)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  t.same(await read('/connectors/triggers/review.created'), [])
  const store = (await app.services.stores.find(tenant.storeId))!
  await app.services.reviews.submit(store, { productId: 'p1', rating: 4, body: 'Fits', authorName: 'Ada', authorEmail: 'ada@example.test' })
  t.equal((await read('/connectors/triggers/review.created')).length, 1)
})

t.test('an unchanged marker answers from memory: an event row removed behind the service stays until an append', {
  skip: !onMysql && 'without Redis no marker is shared and nothing is kept'
}, async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const read = reader(app, tenant)
  const first = await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  t.equal((await read('/connectors/triggers/review.created')).length, 1)
  await app.db('events').where({ store_env_id: tenant.storeId }).del()
  t.equal((await read('/connectors/triggers/review.created')).length, 1)
  await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_2', rating: 5 })
  const after = await read('/connectors/triggers/review.created')
  t.equal(after.length, 1)
  t.not(after[0].id, first.id)
})
