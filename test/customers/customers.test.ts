import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeTenant, makeStore, type Tenant } from '../factories.js'
import { base62 } from '../../src/lib/ids.js'
import { tablesHolding } from './tables-holding.js'

const put = (app: FastifyInstance, tenant: Pick<Tenant, 'key' | 'storeId'>, customers: unknown[]) =>
  call(app, { method: 'PUT', url: '/v1/customers', key: tenant.key, store: tenant.storeId, payload: { customers } })
const get = (app: FastifyInstance, tenant: Pick<Tenant, 'key' | 'storeId'>, url: string) =>
  call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
const eventTypes = async (app: FastifyInstance, storeId: string) =>
  (await app.db('events').where({ store_env_id: storeId }).orderBy('id').pluck('type')) as string[]

t.test('an upsert replaces the stored customer and appends customer.created, then customer.updated', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const first = await put(app, tenant, [{
    platformCustomerId: 'c1',
    email: 'Ann@Example.com',
    firstName: 'Ann',
    phone: '+1 555',
    birthday: { month: 2, day: 29 }
  }])
  t.same(first.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  await put(app, tenant, [{ platformCustomerId: 'c1', email: 'ann@example.com', lastName: 'Lee' }])
  const [customer] = (await get(app, tenant, '/v1/customers')).json().data
  t.match(customer, {
    id: /^cus_/,
    platformCustomerId: 'c1',
    email: 'ann@example.com',
    firstName: null,
    lastName: 'Lee',
    phone: null,
    birthday: null
  })
  t.same(await eventTypes(app, tenant.storeId), ['customer.created', 'customer.updated'])
  t.same((await get(app, tenant, `/v1/customers/${customer.id}`)).json(), customer)
})

t.test('re-sending an identical batch changes nothing and appends no event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const batch = [{ platformCustomerId: 'a', email: 'a@example.com', birthday: { month: 12, day: 31, year: 1960 } }, {
    platformCustomerId: 'b'
  }]
  await put(app, tenant, batch)
  const before = (await get(app, tenant, '/v1/customers')).json()
  t.same((await put(app, tenant, batch)).json(), { received: 2, upserted: 2, failed: 0, errors: [] })
  t.same((await get(app, tenant, '/v1/customers')).json(), before)
  t.equal((await eventTypes(app, tenant.storeId)).length, 2)
})

t.test('bad items are reported by index, birthdays included, and the rest of the batch is stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [
    { platformCustomerId: 'leap-no-year', birthday: { month: 2, day: 29 } },
    { platformCustomerId: 'leap-2023', birthday: { month: 2, day: 29, year: 2023 } },
    { platformCustomerId: 'leap-2024', birthday: { month: 2, day: 29, year: 2024 } },
    { platformCustomerId: 'april-31', birthday: { month: 4, day: 31 } },
    { platformCustomerId: 'month-13', birthday: { month: 13, day: 1 } },
    { platformCustomerId: 'x'.repeat(192) },
    { platformCustomerId: 'long-name', firstName: '😀'.repeat(101) },
    { platformCustomerId: 'bad-mail', email: 'not-an-address' },
    { platformCustomerId: 'leap-no-year', email: 'dup@example.com' },
    { platformCustomerId: 'emoji', firstName: '😀'.repeat(100), lastName: 'Ō\u0301' }
  ])
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.errors.map((e: { index: number, code: string }) => [e.index, e.code]), [
    [1, 'invalid_item'],
    [3, 'invalid_item'],
    [4, 'invalid_item'],
    [5, 'invalid_item'],
    [6, 'invalid_item'],
    [7, 'invalid_item'],
    [8, 'duplicate_item']
  ])
  t.match(body.errors[0].message, /birthday/)
  const ids = (await get(app, tenant, '/v1/customers')).json().data.map((c: { platformCustomerId: string }) => c.platformCustomerId).sort()
  t.same(ids, ['emoji', 'leap-2024', 'leap-no-year'])
})

t.test('a batch of 251 customers is refused whole with batch_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, Array.from({ length: 251 }, (_, i) => ({ platformCustomerId: `c-${i}` })))
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'batch_too_large')
  t.equal((await get(app, tenant, '/v1/customers')).json().meta.total, 0)
})

t.test('the list pages by updatedAt then id, and updatedSince keeps what changed from that instant', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformCustomerId: 'old' }])
  await app.db('customers').where({ store_env_id: tenant.storeId }).update({ updated_at: Date.parse('2026-01-01T00:00:00Z') })
  await put(app, tenant, [{ platformCustomerId: 'n1' }, { platformCustomerId: 'n2' }, { platformCustomerId: 'n3' }])
  const all = (await get(app, tenant, '/v1/customers?limit=2')).json()
  t.equal(all.meta.total, 4)
  t.equal(all.data[0].platformCustomerId, 'old')
  const since = (await get(app, tenant, '/v1/customers?updatedSince=2026-01-01T00:00:00.001Z&limit=500')).json()
  t.equal(since.meta.limit, 100)
  t.same(since.data.map((c: { platformCustomerId: string }) => c.platformCustomerId).sort(), ['n1', 'n2', 'n3'])
  const ids = since.data.map((c: { id: string }) => c.id)
  t.same(ids, [...ids].sort(), 'same updatedAt: ordered by id')
  for (const bad of ['1969-12-31T23:59:59Z', 'yesterday', '2026-02-30T00:00:00Z']) {
    const res = await get(app, tenant, `/v1/customers?updatedSince=${encodeURIComponent(bad)}`)
    t.equal(res.statusCode, 400, bad)
    t.equal(res.json().code, 'invalid_request')
  }
  t.equal((await get(app, tenant, '/v1/customers?email=N1@x')).json().meta.total, 0)
})

t.test('an order links to its customer by platform id, else by email, and shows the customer id', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformCustomerId: 'p-ann', email: 'ann@example.com' }, {
    platformCustomerId: 'p-bob',
    email: 'bob@example.com'
  }])
  const byKey = new Map(
    (await get(app, tenant, '/v1/customers')).json().data.map((
      c: { platformCustomerId: string, id: string }
    ) => [c.platformCustomerId, c.id])
  )
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [
        { platformOrderId: 'o1', platformCustomerId: 'p-bob', customerEmail: 'ann@example.com' },
        { platformOrderId: 'o2', customerEmail: 'ANN@Example.com' },
        { platformOrderId: 'o3', platformCustomerId: 'unknown', customerEmail: 'bob@example.com' },
        { platformOrderId: 'o4', customerEmail: 'nobody@example.com' }
      ]
    }
  })
  const orders = (await get(app, tenant, '/v1/orders')).json().data
  const linked = Object.fromEntries(
    orders.map((o: { platformOrderId: string, customerId: string | null }) => [o.platformOrderId, o.customerId])
  )
  t.same(linked, { o1: byKey.get('p-bob'), o2: byKey.get('p-ann'), o3: byKey.get('p-bob'), o4: null })
})

t.test('the customer email is shown to customers:read, and customers stay closed to other scopes', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformCustomerId: 'c', email: 'seen@example.com' }])
  const reader = await makeKey(app, tenant, 'viewer', ['customers:read'])
  const res = await get(app, { key: reader.secret, storeId: tenant.storeId }, '/v1/customers')
  t.equal(res.json().data[0].email, 'seen@example.com')
  const other = await makeKey(app, tenant, 'viewer', ['reviews:read'])
  const refused = await get(app, { key: other.secret, storeId: tenant.storeId }, '/v1/customers')
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'insufficient_scope')
  const write = await put(app, { key: reader.secret, storeId: tenant.storeId }, [{ platformCustomerId: 'x' }])
  t.equal(write.json().code, 'role_read_only')
})

t.test('one store cannot read, change or erase another store\'s customers', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  await put(app, a, [{ platformCustomerId: 'same', email: 'a@example.com' }])
  await put(app, b, [{ platformCustomerId: 'same', email: 'b@example.com' }])
  const idA = (await get(app, a, '/v1/customers')).json().data[0].id
  t.equal((await get(app, b, `/v1/customers/${idA}`)).statusCode, 404)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/customers/${idA}`, key: b.key, store: b.storeId })).statusCode, 404)
  t.equal((await get(app, { key: a.key, storeId: b.storeId }, '/v1/customers')).json().code, 'store_env_not_found')
  const otherStore = await makeStore(app, a)
  t.equal((await get(app, { key: a.key, storeId: otherStore }, '/v1/customers')).json().meta.total, 0)
  t.equal((await get(app, a, `/v1/customers/${idA}`)).json().email, 'a@example.com')
})

t.test('erasure leaves the address in no table, anonymises reviews, keeps them, and is audited', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const email = `erase-${base62(12).toLowerCase()}@example.test`
  const other = `keep-${base62(12).toLowerCase()}@example.test`
  await put(app, tenant, [{
    platformCustomerId: 'gone',
    email: email.toUpperCase(),
    firstName: 'Gone',
    lastName: 'Person',
    birthday: { month: 5, day: 1 }
  }, { platformCustomerId: 'stays', email: other }])
  const id = (await get(app, tenant, '/v1/customers?email=' + email)).json().data[0].id
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{
        platformOrderId: 'o1',
        customerEmail: email,
        customerName: 'Gone Person',
        fulfilledAt: '2026-11-20T00:00:00Z',
        lineItems: [{ platformProductId: 'p1', quantity: 1 }]
      }, { platformOrderId: 'o2', customerEmail: other }]
    }
  })
  const submitted = await call(app, {
    method: 'POST',
    url: '/v1/reviews',
    store: tenant.storeId,
    headers: { origin: 'https://shop.example' },
    payload: { productId: 'p1', rating: 5, body: `Great, write me at ${email}`, authorName: 'Gone P.', authorEmail: email, orderId: 'o1' }
  })
  const reviewId = submitted.json().id
  await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${reviewId}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { status: 'published' }
  })
  t.ok((await tablesHolding(app, email)).length >= 3, 'the address was stored in several tables')

  const erased = await call(app, { method: 'DELETE', url: `/v1/customers/${id}`, key: tenant.key, store: tenant.storeId })
  t.equal(erased.statusCode, 204)
  t.same(
    await tablesHolding(app, email),
    ['email_suppressions.email'],
    'only the suppression list holds the address, so no mail reaches it again'
  )
  t.match(await app.db('email_suppressions').where({ store_env_id: tenant.storeId, email }).first(), { reason: 'manual' })
  t.same(await tablesHolding(app, 'gone person'), [], 'nor the name')
  // A second key for the checks: the first has used much of its one-second budget.
  const checker = { key: (await makeKey(app, tenant, 'admin')).secret, storeId: tenant.storeId }
  const review = (await get(app, checker, `/v1/reviews/${reviewId}`)).json()
  t.match(review, { authorName: 'Anonymous', authorEmailLast4: null, status: 'published', rating: 5 })
  t.match((await get(app, checker, '/v1/orders/o1')).json(), {
    customerEmail: null,
    customerName: null,
    customerId: id,
    reviewRequest: { state: 'skipped' }
  })
  t.equal((await get(app, checker, '/v1/orders/o2')).json().customerEmail, other, 'other customers keep their data')
  t.equal((await get(app, checker, `/v1/customers/${id}`)).statusCode, 404)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/customers/${id}`, key: checker.key, store: tenant.storeId })).statusCode, 404)
  const audit = (await get(app, checker, '/v1/account/audit-log?action=customer.erased')).json().data
  t.match(audit, [{ action: 'customer.erased', subject: `customer:${id}`, details: { orders: 1, reviews: 1 } }])
  const deleted = await app.db('events').where({ store_env_id: tenant.storeId, type: 'customer.deleted' }).first()
  t.same(JSON.parse(deleted.data), { id, orderIds: ['o1'], reviewIds: [reviewId] })
  await put(app, checker, [{ platformCustomerId: 'gone', email: 'new@example.com' }])
  const again = (await get(app, checker, '/v1/customers')).json().data.find((c: { platformCustomerId: string }) =>
    c.platformCustomerId === 'gone'
  )
  t.not(again.id, id, 'a later sync of the platform id is a new customer')
})

t.test('erasure runs every module\'s reaction in its transaction, and a failing one erases nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformCustomerId: 'c', email: 'steps@example.com' }])
  const id = (await get(app, tenant, '/v1/customers')).json().data[0].id
  const seen: unknown[] = []
  const stop = app.services.bus.on('customer.erased', async (_trx, { subject }) => {
    seen.push(subject)
    throw new Error('leads unavailable')
  })
  t.teardown(stop)
  const failed = await call(app, { method: 'DELETE', url: `/v1/customers/${id}`, key: tenant.key, store: tenant.storeId })
  t.equal(failed.statusCode, 500)
  t.same(seen, [{ orgId: tenant.orgId, storeEnvId: tenant.storeId, customerId: id, email: 'steps@example.com' }])
  t.equal((await get(app, tenant, `/v1/customers/${id}`)).json().email, 'steps@example.com', 'rolled back whole')
  t.equal((await get(app, tenant, '/v1/account/audit-log?action=customer.erased')).json().meta.total, 0)
})

t.test('erasure finds the orders stored under the address in another case and linked to no customer', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const tag = base62(10).toLowerCase()
  const email = `jose-${tag}@example.test`
  // Stored before the customer exists, so linked to no customer: only the address finds them.
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{ platformOrderId: 'upper', customerEmail: email.toUpperCase() }, {
        platformOrderId: 'other',
        customerEmail: `other-${tag}@example.test`
      }]
    }
  })
  await put(app, tenant, [{ platformCustomerId: 'jose', email }])
  const id = (await get(app, tenant, '/v1/customers?email=' + email)).json().data[0].id
  t.equal((await call(app, { method: 'DELETE', url: `/v1/customers/${id}`, key: tenant.key, store: tenant.storeId })).statusCode, 204)
  const rows = await app.db('orders').where({ store_env_id: tenant.storeId }).orderBy('platform_order_id').select(
    'platform_order_id',
    'customer_email'
  )
  t.same(rows, [{ platform_order_id: 'other', customer_email: `other-${tag}@example.test` }, {
    platform_order_id: 'upper',
    customer_email: null
  }])
  const deleted = await app.db('events').where({ store_env_id: tenant.storeId, type: 'customer.deleted' }).first()
  t.same(JSON.parse(deleted.data).orderIds, ['upper'])
})

t.test('erasure moves the updatedAt of the orders it clears, so incremental syncs of GET /orders drop the address', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o-1', customerEmail: 'ann@example.test' }] }
  })
  await put(app, tenant, [{ platformCustomerId: 'ann', email: 'ann@example.test' }])
  const first = (await get(app, tenant, '/v1/orders?updatedSince=2000-01-01T00:00:00Z')).json()
  clock.advance(60_000)
  const id = (await get(app, tenant, '/v1/customers')).json().data[0].id
  t.equal((await call(app, { method: 'DELETE', url: `/v1/customers/${id}`, key: tenant.key, store: tenant.storeId })).statusCode, 204)
  const next = (await get(app, tenant, `/v1/orders?cursor=${first.meta.nextCursor}`)).json()
  t.same(next.data.map((o: { customerEmail: string | null, updatedAt: string }) => [o.customerEmail, o.updatedAt]), [[
    null,
    new Date(clock()).toISOString()
  ]])
})
