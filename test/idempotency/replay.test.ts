import t from 'tap'
import { call, sharedApp, statementsOf } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'
import { makeCustomers } from '../loyalty/support.js'
import { keyed, review } from './support.js'

t.test('a repeated import with the same key answers the first answer again and imports once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const body = { type: 'reviews', items: [review(1), review(2)] }
  const first = await keyed(app, tenant, 'POST', '/v1/imports', body, 'import-1')
  const again = await keyed(app, tenant, 'POST', '/v1/imports', body, 'import-1')
  t.equal(first.statusCode, 201)
  t.equal(again.statusCode, 201)
  t.equal(again.body, first.body, 'the same body, byte for byte')
  t.equal(again.headers['content-type'], first.headers['content-type'])
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.notOk(first.headers['idempotent-replayed'], 'the first answer is not a replay')
  const imports = (await keyed(app, tenant, 'GET', '/v1/imports')).json()
  t.equal(imports.meta.total, 1, 'one import')
  const reviews = (await keyed(app, tenant, 'GET', '/v1/reviews')).json()
  t.equal(reviews.meta.total, 2, 'its two reviews, once')
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'review.created' }).count({ n: '*' })
  t.equal(Number(events[0].n), 2, 'one event per review, so one webhook each')
})

t.test('a repeated outbound webhook creation with the same key creates one subscription', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const body = { url: 'https://receiver.example/hook', events: ['review.created'] }
  const first = await keyed(app, tenant, 'POST', '/v1/outbound-webhooks', body, 'hook-1')
  const again = await keyed(app, tenant, 'POST', '/v1/outbound-webhooks', body, 'hook-1')
  t.equal(first.statusCode, 201)
  t.same(again.json(), first.json(), 'the same subscription, its secret included')
  const list = (await keyed(app, tenant, 'GET', '/v1/outbound-webhooks')).json()
  t.equal(list.data.length, 1)
})

t.test('a repeated bulk upsert with the same key is answered again without writing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const body = { products: [{ platformProductId: 'p1', title: 'Linen shirt' }] }
  const first = await keyed(app, tenant, 'PUT', '/v1/products', body, 'upsert-1')
  const updates = await app.db('events').where({ store_env_id: tenant.storeId }).count({ n: '*' })
  const again = await keyed(app, tenant, 'PUT', '/v1/products', body, 'upsert-1')
  t.equal(first.statusCode, 200)
  t.same(first.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  t.same(again.json(), first.json(), 'the first answer (a second run would say upserted: 0)')
  t.equal(again.headers['idempotent-replayed'], 'true')
  const after = await app.db('events').where({ store_env_id: tenant.storeId }).count({ n: '*' })
  t.equal(Number(after[0].n), Number(updates[0].n))
})

t.test('requests without the key each run', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const body = { type: 'reviews', items: [review(1)] }
  await keyed(app, tenant, 'POST', '/v1/imports', body)
  await keyed(app, tenant, 'POST', '/v1/imports', body)
  t.equal((await keyed(app, tenant, 'GET', '/v1/imports')).json().meta.total, 2)
})

t.test('the same key with another body is 400 idempotency_key_reused and does nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(1)] }, 'import-1')
  const other = await keyed(app, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(2)] }, 'import-1')
  t.equal(other.statusCode, 400)
  t.equal(other.json().code, 'idempotency_key_reused')
  t.equal((await keyed(app, tenant, 'GET', '/v1/imports')).json().meta.total, 1)
})

t.test('the same key on another operation is 400 idempotency_key_reused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(1)] }, 'key-1')
  const other = await keyed(app, tenant, 'POST', '/v1/outbound-webhooks', { url: 'https://receiver.example/hook' }, 'key-1')
  t.equal(other.statusCode, 400)
  t.equal(other.json().code, 'idempotency_key_reused')
  t.equal((await keyed(app, tenant, 'GET', '/v1/outbound-webhooks')).json().data.length, 0)
})

t.test('the same key and body for another store of the organization is 400 idempotency_key_reused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeStore(app, tenant)
  const body = { type: 'reviews', items: [review(1)] }
  await keyed(app, tenant, 'POST', '/v1/imports', body, 'key-1')
  const res = await call(app, {
    method: 'POST', url: '/v1/imports', key: tenant.key, store: other, payload: body, headers: { 'idempotency-key': 'key-1' }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'idempotency_key_reused')
})

t.test('two organizations may use the same key, each for its own request', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const body = { type: 'reviews', items: [review(1)] }
  const first = await keyed(app, a, 'POST', '/v1/imports', body, 'shared-key')
  const second = await keyed(app, b, 'POST', '/v1/imports', body, 'shared-key')
  t.equal(second.statusCode, 201)
  t.notOk(second.headers['idempotent-replayed'])
  t.not(second.json().id, first.json().id)
  t.equal((await keyed(app, b, 'GET', '/v1/imports')).json().meta.total, 1)
})

t.test('a request refused by validation keeps its 400 for the key, as Stripe does', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const bad = { type: 'reviews', items: [review(1)], extra: true }
  const first = await keyed(app, tenant, 'POST', '/v1/imports', bad, 'bad-1')
  const again = await keyed(app, tenant, 'POST', '/v1/imports', bad, 'bad-1')
  t.equal(first.statusCode, 400)
  t.equal(first.json().code, 'invalid_request')
  t.equal(again.statusCode, 400)
  t.equal(again.body, first.body)
  t.equal(again.headers['idempotent-replayed'], 'true')
})

t.test('the key does not change the loyalty transaction body field: its reuse stays 409', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c', email: 'c@example.com' }])
  const url = `/v1/loyalty/accounts/${c}/transactions`
  const first = await keyed(app, tenant, 'POST', url, { points: 10, reason: 'Welcome', idempotencyKey: 'grant-1' })
  const other = await keyed(app, tenant, 'POST', url, { points: 20, reason: 'Welcome', idempotencyKey: 'grant-1' })
  t.equal(first.statusCode, 201, first.body)
  t.equal(other.statusCode, 409)
  t.equal(other.json().code, 'idempotency_key_reused')
})

t.test('a write without the key and a read with it send no query to idempotency_keys', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const statements = statementsOf(t, app, /idempotency_keys/)
  await keyed(app, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(1)] })
  await keyed(app, tenant, 'GET', '/v1/imports', undefined, 'read-1')
  t.same(statements, [])
})
