import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp, statementsOf } from '../helper.js'
import { makeStore, makeTenant, type Tenant } from '../factories.js'
import { appendEvent } from '../webhooks/support.js'

/* Event ids count one store's events (issue 45): a tenant learns nothing of the platform's volume from them. */

const idsOf = (res: { json: () => { events: Array<{ id: string }> } }) => res.json().events.map((e) => e.id)

function upsert (app: FastifyInstance, tenant: Tenant, products: string[], store = tenant.storeId) {
  return call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store,
    payload: { products: products.map((id) => ({ platformProductId: id })) }
  })
}

t.test('a new organization\'s first event is evt_1, whatever other tenants have appended', async (t) => {
  const app = await sharedApp()
  const busy = await makeTenant(app)
  for (let i = 0; i < 3; i++) await appendEvent(app, busy, 'review.created')
  const tenant = await makeTenant(app)
  const first = await appendEvent(app, tenant, 'review.created')
  t.equal(first.id, 'evt_1')
  t.equal((await appendEvent(app, tenant, 'review.created')).id, 'evt_2')
})

t.test('each store of an organization numbers its own events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant)
  t.equal((await upsert(app, tenant, ['a', 'b'])).statusCode, 200)
  t.equal((await upsert(app, tenant, ['c'], second)).statusCode, 200)
  t.same(idsOf(await call(app, { method: 'GET', url: '/v1/events', key: tenant.key, store: tenant.storeId })), ['evt_1', 'evt_2'])
  t.same(idsOf(await call(app, { method: 'GET', url: '/v1/events', key: tenant.key, store: second })), ['evt_1'])
})

t.test('since= an event id or a next_cursor continues after that event, and GET /events/:id finds it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await upsert(app, tenant, ['a', 'b', 'c'])
  const page = await call(app, { method: 'GET', url: '/v1/events?limit=2', key: tenant.key, store: tenant.storeId })
  t.equal(page.json().next_cursor, 'evt_2')
  t.same(idsOf(await call(app, { method: 'GET', url: '/v1/events?since=evt_2', key: tenant.key, store: tenant.storeId })), ['evt_3'])
  t.same(idsOf(await call(app, { method: 'GET', url: '/v1/events?since=1', key: tenant.key, store: tenant.storeId })), ['evt_2', 'evt_3'])
  const one = await call(app, { method: 'GET', url: '/v1/events/evt_3', key: tenant.key, store: tenant.storeId })
  t.match(one.json(), { id: 'evt_3', type: 'product.upserted', data: { platformProductId: 'c' } })
})

t.test('a polled trigger item carries the event\'s id in its store', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await upsert(app, tenant, ['a', 'b'])
  const res = await call(app, { method: 'GET', url: '/v1/connectors/triggers/product.upserted', key: tenant.key, store: tenant.storeId })
  t.same(res.json().map((item: { id: string }) => item.id), ['evt_2', 'evt_1'])
})

t.test('writers appending to one store at the same moment never share an id, and the log stays in id order', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const writes = await Promise.all(
    Array.from({ length: 8 }, (_, w) => upsert(app, tenant, Array.from({ length: 5 }, (_, i) => `w${w}-${i}`)))
  )
  t.same(writes.map((w) => w.statusCode), Array(8).fill(200))
  const log = await call(app, { method: 'GET', url: '/v1/events?limit=100', key: tenant.key, store: tenant.storeId })
  t.same(idsOf(log), Array.from({ length: 40 }, (_, i) => `evt_${i + 1}`))
  const singles = await Promise.all(Array.from({ length: 6 }, () => appendEvent(app, tenant, 'review.created')))
  t.same(
    singles.map((e) => e.id).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4))),
    Array.from({ length: 6 }, (_, i) => `evt_${41 + i}`)
  )
})

t.test('appending an event costs two statements, as before: its number comes with the store\'s lock', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await appendEvent(app, tenant, 'review.created')
  const statements = statementsOf(t, app, /`event_heads`|(into|from|update) `events`/)
  await appendEvent(app, tenant, 'review.created')
  t.equal(statements.length, 2, statements.join('\n'))
})
