import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('an order upsert replaces the stored order and GET shows every field', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const put = (orders: unknown[]) =>
    call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders } })
  await put([{
    platformOrderId: '1001',
    customerEmail: 'bo@example.test',
    customerName: 'Bo',
    total: 42.5,
    currency: 'EUR',
    placedAt: '2026-11-01T10:00:00Z',
    lineItems: [{ platformProductId: 'p', quantity: 2 }]
  }])
  const first = (await call(app, { method: 'GET', url: '/v1/orders/1001', key: tenant.key, store: tenant.storeId })).json()
  t.match(first, {
    platformOrderId: '1001',
    customerEmail: 'bo@example.test',
    total: 42.5,
    currency: 'EUR',
    placedAt: '2026-11-01T10:00:00.000Z',
    lineItems: [{ platformProductId: 'p', quantity: 2 }]
  })
  const res = await put([{ platformOrderId: '1001', customerEmail: 'bo@example.test' }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const second = (await call(app, { method: 'GET', url: '/v1/orders/1001', key: tenant.key, store: tenant.storeId })).json()
  t.match(second, { customerName: null, total: null, currency: null, placedAt: null, lineItems: [] })
})

t.test('order items are checked one by one and 251 orders are refused with batch_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const mixed = await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{ platformOrderId: 'a', currency: 'euro' }, { platformOrderId: 'b', placedAt: 'yesterday' }, { platformOrderId: 'c' }]
    }
  })
  t.match(mixed.json(), {
    received: 3,
    upserted: 1,
    failed: 2,
    errors: [{ index: 0, platformId: 'a', code: 'invalid_item' }, { index: 1, platformId: 'b', code: 'invalid_item' }]
  })
  const big = await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: Array.from({ length: 251 }, (_, i) => ({ platformOrderId: `o${i}` })) }
  })
  t.equal(big.statusCode, 400)
  t.equal(big.json().code, 'batch_too_large')
})

t.test('GET /orders pages the store\'s orders and filters by review request state', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{ platformOrderId: 'x' }, {
        platformOrderId: 'y',
        customerEmail: 'y@example.test',
        fulfilledAt: '2026-11-01T00:00:00Z',
        lineItems: [{ platformProductId: 'p', quantity: 1 }]
      }]
    }
  })
  const all = (await call(app, { method: 'GET', url: '/v1/orders?limit=1', key: tenant.key, store: tenant.storeId })).json()
  t.same(all.meta, { total: 2, page: 1, limit: 1, totalPages: 2 })
  const scheduled =
    (await call(app, { method: 'GET', url: '/v1/orders?reviewRequestState=scheduled', key: tenant.key, store: tenant.storeId })).json()
  t.same(scheduled.data.map((o: { platformOrderId: string }) => o.platformOrderId), ['y'])
})

t.test('one store cannot read another store\'s orders', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  await call(app, { method: 'PUT', url: '/v1/orders', key: a.key, store: a.storeId, payload: { orders: [{ platformOrderId: 'secret' }] } })
  const res = await call(app, { method: 'GET', url: '/v1/orders/secret', key: b.key, store: b.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
  const cross = await call(app, { method: 'GET', url: '/v1/orders/secret', key: b.key, store: a.storeId })
  t.equal(cross.json().code, 'store_env_not_found')
})
