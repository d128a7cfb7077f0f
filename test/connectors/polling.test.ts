import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeStore, makeTenant, type Tenant } from '../factories.js'

async function append (app: FastifyInstance, tenant: Tenant, type: string, data: Record<string, unknown>, storeId = tenant.storeId) {
  return app.db.transaction((trx) => app.events.append(trx, { orgId: tenant.orgId, storeEnvId: storeId, type, data }))
}

function poll (app: FastifyInstance, tenant: Tenant, event: string, options: { key?: string, store?: string, query?: string } = {}) {
  return call(app, {
    method: 'GET',
    url: `/v1/connectors/triggers/${event}${options.query ?? ''}`,
    key: options.key ?? tenant.key,
    store: options.store ?? tenant.storeId
  })
}

t.test('polling returns the store\'s events of that type, newest first', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const first = await append(app, tenant, 'review.created', { id: 'rev_1', rating: 4 })
  await append(app, tenant, 'order.upserted', { platformOrderId: 'o-1' })
  await append(app, tenant, 'review.published', { id: 'rev_1', rating: 4 })
  const second = await append(app, tenant, 'review.created', { id: 'rev_2', rating: 5 })
  const res = await poll(app, tenant, 'review.created')
  t.equal(res.statusCode, 200)
  t.same(res.json().map((item: { id: string }) => item.id), [second.id, first.id])
  t.match(res.json()[0], { id: second.id, type: 'review.created', createdAt: second.createdAt, reviewId: 'rev_2', rating: 5 })
})

t.test('polling never returns an event of another store of the organization or of another organization', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const secondStore = await makeStore(app, tenant)
  const own = await append(app, tenant, 'review.created', { id: 'rev_own' })
  await append(app, tenant, 'review.created', { id: 'rev_second_store' }, secondStore)
  await append(app, other, 'review.created', { id: 'rev_other_org' })
  const res = await poll(app, tenant, 'review.created')
  t.same(res.json().map((item: { id: string }) => item.id), [own.id])
})

t.test('another organization\'s key cannot poll this store', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  await append(app, tenant, 'review.created', { id: 'rev_secret' })
  const res = await poll(app, tenant, 'review.created', { key: other.key })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
  t.notOk(res.body.includes('rev_secret'))
})

t.test('a polled item keeps its id and content when newer events arrive', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await append(app, tenant, 'order.upserted', { platformOrderId: 'o-1', total: 10 })
  const before = (await poll(app, tenant, 'order.upserted')).json()
  await append(app, tenant, 'order.upserted', { platformOrderId: 'o-1', total: 12 })
  const after = (await poll(app, tenant, 'order.upserted')).json()
  t.equal(after.length, 2)
  t.same(after[1], before[0], 'the earlier item is unchanged')
  t.not(after[0].id, before[0].id, 'the update is a new item with its own id')
  t.equal(after[0].total, 12)
})

t.test('a key scoped to orders:read can poll order events but not review events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', ['orders:read'])
  await append(app, tenant, 'order.upserted', { platformOrderId: 'o-1' })
  await append(app, tenant, 'order.review_request.updated', { platformOrderId: 'o-1', reviewRequest: { state: 'sent' } })
  await append(app, tenant, 'review.created', { id: 'rev_1' })
  const orders = await poll(app, tenant, 'order.upserted', { key: key.secret })
  t.equal(orders.statusCode, 200)
  t.equal(orders.json().length, 1)
  t.equal((await poll(app, tenant, 'order.review_request.updated', { key: key.secret })).statusCode, 200)
  const reviews = await poll(app, tenant, 'review.created', { key: key.secret })
  t.equal(reviews.statusCode, 403)
  t.equal(reviews.json().code, 'insufficient_scope')
  t.notOk(reviews.body.includes('rev_1'))
})

t.test('a key scoped to connectors only cannot poll any event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor', ['connectors:write'])
  const res = await poll(app, tenant, 'product.upserted', { key: key.secret })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
})

t.test('the event log\'s own scopes do not let a key poll an event whose resource it may not read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await append(app, tenant, 'order.upserted', { platformOrderId: 'o-1', customerEmail: 'ann@example.test' })
  const key = await makeKey(app, tenant, 'viewer', ['events:read', 'outbound-webhooks:read', 'reviews:read'])
  const res = await poll(app, tenant, 'order.upserted', { key: key.secret })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
  t.notOk(res.body.includes('ann@example.test'))
  t.equal((await poll(app, tenant, 'review.created', { key: key.secret })).statusCode, 200)
})

t.test('an unknown event type is 404 not_found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await poll(app, tenant, 'review.exploded')
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})

t.test('polling without a valid credential is 401 and never a redirect', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await poll(app, tenant, 'review.created', { key: 'svc_notAKeyAtAllnotAKeyAtAllnotAKeyAtAll1' })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
  t.notOk(res.headers.location)
})

t.test('the limit defaults to 50 and is clamped to 100', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await app.db.transaction(async (trx) => {
    for (let i = 0; i < 105; i++) {
      await app.events.append(trx, {
        orgId: tenant.orgId,
        storeEnvId: tenant.storeId,
        type: 'product.upserted',
        data: { platformProductId: `p-${i}` }
      })
    }
  })
  t.equal((await poll(app, tenant, 'product.upserted')).json().length, 50)
  const clamped = (await poll(app, tenant, 'product.upserted', { query: '?limit=500' })).json()
  t.equal(clamped.length, 100)
  t.equal(clamped[0].platformProductId, 'p-104')
  t.equal((await poll(app, tenant, 'product.upserted', { query: '?limit=3' })).json().length, 3)
  t.equal((await poll(app, tenant, 'product.upserted', { query: '?limit=0' })).statusCode, 400)
})

t.test('an item never shows a reviewer\'s full address', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await append(app, tenant, 'review.created', { id: 'rev_1', authorEmail: 'maya.roberts@example.com' })
  const [item] = (await poll(app, tenant, 'review.created')).json()
  t.equal(item.authorEmailLast4, '.com')
  t.notOk(JSON.stringify(item).includes('maya.roberts'))
})
