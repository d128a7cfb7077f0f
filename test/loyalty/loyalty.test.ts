import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { orderPoints } from '../../src/modules/loyalty/loyalty.service.js'
import { account, freshKey, makeCustomers, setSettings, transact } from './support.js'

t.test('settings start with rewards off and default tiers, and PUT replaces them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const initial = (await call(app, { method: 'GET', url: '/v1/loyalty/settings', ...as })).json()
  t.match(initial, {
    pointsPerUnit: 0,
    birthdayReward: { points: 0 },
    referralReward: { referrerPoints: 0, refereePoints: 0 },
    tiers: [{ name: 'bronze', minPoints: 0 }, { name: 'silver' }, { name: 'gold' }],
    updatedAt: null
  })
  const body = {
    pointsPerUnit: 2,
    birthdayReward: { points: 200 },
    referralReward: { referrerPoints: 500, refereePoints: 250 },
    tiers: [{ name: 'vip', minPoints: 100 }]
  }
  const put = await call(app, { method: 'PUT', url: '/v1/loyalty/settings', ...as, payload: body })
  t.equal(put.statusCode, 200)
  t.match(put.json(), body)
  t.match((await call(app, { method: 'GET', url: '/v1/loyalty/settings', ...as })).json(), body)
  t.equal((await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.settings.updated' }).count({ n: '*' }))[0].n, 1)
})

t.test('settings refuse negative, fractional, huge and unknown values with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = await freshKey(app, tenant)
  const good = { pointsPerUnit: 1, birthdayReward: { points: 1 }, referralReward: { referrerPoints: 1, refereePoints: 1 } }
  for (const bad of [
    { ...good, pointsPerUnit: -1 }, { ...good, pointsPerUnit: 1.5 }, { ...good, birthdayReward: { points: 1e12 } },
    { ...good, referralReward: { referrerPoints: 1 } }, { ...good, colour: 'red' }, { ...good, tiers: [{ name: '', minPoints: 0 }] }
  ]) {
    const res = await call(app, { method: 'PUT', url: '/v1/loyalty/settings', key: as.key, store: as.storeId, payload: bad })
    t.equal(res.statusCode, 400, JSON.stringify(bad))
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('a transaction earns or spends points and the ledger keeps every entry, newest first', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, storeId: tenant.storeId }
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c', email: 'c@example.com', firstName: 'Cy' }])
  const earned = await transact(app, as, c, { points: 1200, reason: 'Welcome', idempotencyKey: 'k1' })
  t.equal(earned.statusCode, 201)
  t.match(earned.json(), {
    entry: { kind: 'api', points: 1200, balanceAfter: 1200, reason: 'Welcome', idempotencyKey: 'k1' },
    account: { id: /^lya_/, balance: 1200, tier: 'silver' }
  })
  t.equal((await transact(app, as, c, { points: -200, reason: 'Redeemed', idempotencyKey: 'k2' })).statusCode, 201)
  const got = await account(app, as, c)
  t.match(got, { customerId: c, balance: 1000, lifetimePoints: 1200, tier: 'silver' })
  t.same(got.ledger.data.map((e: { points: number }) => e.points), [-200, 1200])
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.account.updated' }).orderBy('id').first()
  t.match(JSON.parse(event.data), { customerEmail: 'c@example.com', customerName: 'Cy', points: 1200, balance: 1200 })
})

t.test('a spend larger than the balance is refused with insufficient_points and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, storeId: tenant.storeId }
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c' }])
  const fromNothing = await transact(app, as, c, { points: -1, reason: 'Spend', idempotencyKey: 'a' })
  t.equal(fromNothing.statusCode, 409)
  t.equal(fromNothing.json().code, 'insufficient_points')
  await transact(app, as, c, { points: 50, reason: 'Earn', idempotencyKey: 'b' })
  t.equal((await transact(app, as, c, { points: -51, reason: 'Spend', idempotencyKey: 'c' })).json().code, 'insufficient_points')
  t.equal((await transact(app, as, c, { points: -50, reason: 'Spend all', idempotencyKey: 'd' })).statusCode, 201)
  t.match(await account(app, as, c), { balance: 0, lifetimePoints: 50, ledger: { meta: { total: 2 } } })
})

t.test('the same idempotency key applies once; reused with other points it is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, storeId: tenant.storeId }
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c' }])
  const body = { points: 10, reason: 'Survey', idempotencyKey: 'survey-1' }
  const first = await transact(app, as, c, body)
  const again = await transact(app, as, c, body)
  t.equal(first.statusCode, 201)
  t.equal(again.statusCode, 200)
  t.same(again.json().entry, first.json().entry)
  const reused = await transact(app, as, c, { ...body, points: 11 })
  t.equal(reused.statusCode, 409)
  t.equal(reused.json().code, 'idempotency_key_reused')
  t.equal((await account(app, as, c)).balance, 10)
})

t.test('parallel requests with one key apply once, and parallel spends never take the balance below zero', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c' }])
  const keys = await Promise.all([0, 1].map(() => freshKey(app, tenant)))
  const body = { points: 100, reason: 'Promo', idempotencyKey: 'promo' }
  const same = await Promise.all(Array.from({ length: 8 }, (_, i) => transact(app, keys[i % 2], c, body)))
  t.same(same.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 201])
  const spends = await Promise.all(
    Array.from({ length: 6 }, (_, i) => transact(app, keys[i % 2], c, { points: -30, reason: 'Spend', idempotencyKey: `s${i}` }))
  )
  t.same(spends.map((r) => r.statusCode).sort(), [201, 201, 201, 409, 409, 409])
  const after = await account(app, keys[0], c)
  t.equal(after.balance, 10)
  t.equal(after.ledger.meta.total, 4)
})

t.test('parallel requests with one key all answer the entry and the account the first one made', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c' }])
  const keys = await Promise.all([0, 1].map(() => freshKey(app, tenant)))
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => transact(app, keys[i % 2], c, { points: 100, reason: 'Promo', idempotencyKey: 'first' }))
  )
  const made = answers.find((r) => r.statusCode === 201)!.json()
  t.match(made.account, { id: /^lya_/, balance: 100 })
  for (const replay of answers.filter((r) => r.statusCode === 200)) t.same(replay.json(), made)
})

t.test('transactions refuse zero, fractional, huge points and over-long keys or reasons', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = await freshKey(app, tenant)
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c' }])
  for (const bad of [
    { points: 0, reason: 'r', idempotencyKey: 'k' }, { points: 1.5, reason: 'r', idempotencyKey: 'k' },
    { points: 1_000_000_001, reason: 'r', idempotencyKey: 'k' }, { points: -1e20, reason: 'r', idempotencyKey: 'k' },
    { points: 1, reason: 'r', idempotencyKey: 'k'.repeat(101) }, { points: 1, reason: 'r'.repeat(501), idempotencyKey: 'k' },
    { points: 1, reason: '', idempotencyKey: 'k' }, { points: 1, reason: 'r' }
  ]) {
    const res = await transact(app, as, c, bad)
    t.equal(res.statusCode, 400, JSON.stringify(bad).slice(0, 80))
    t.equal(res.json().code, 'invalid_request')
  }
  const max = await transact(app, await freshKey(app, tenant), c, {
    points: 1_000_000_000,
    reason: '😀'.repeat(500),
    idempotencyKey: '😀'.repeat(100)
  })
  t.equal(max.statusCode, 201)
})

t.test('an unknown or another store\'s customer has no account to read or change', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const { c } = await makeCustomers(app, a.storeId, [{ platformCustomerId: 'c' }])
  const asB = { key: b.key, storeId: b.storeId }
  t.equal((await transact(app, asB, c, { points: 5, reason: 'r', idempotencyKey: 'k' })).statusCode, 404)
  t.equal((await call(app, { method: 'GET', url: `/v1/loyalty/accounts/${c}`, key: b.key, store: b.storeId })).statusCode, 404)
  t.equal((await call(app, { method: 'GET', url: '/v1/loyalty/accounts', key: b.key, store: b.storeId })).json().meta.total, 0)
  t.match(await account(app, { key: a.key, storeId: a.storeId }, c), { id: null, balance: 0, tier: 'bronze', ledger: { data: [] } })
})

t.test('orders of a linked customer earn whole units times pointsPerUnit, once per order', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { c } = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c', email: 'c@example.com' }])
  await setSettings(app, tenant.storeId, { pointsPerUnit: 10 })
  const orders = [{ platformOrderId: 'o1', customerEmail: 'c@example.com', total: 19.99 }, {
    platformOrderId: 'o2',
    customerEmail: 'c@example.com',
    total: 0.1 + 0.2
  }, { platformOrderId: 'o3', customerEmail: 'c@example.com', total: 0 }]
  await call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders } })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: orders.map((o) => ({ ...o, customerName: 'changed' })) }
  })
  const got = await account(app, { key: tenant.key, storeId: tenant.storeId }, c)
  t.equal(got.balance, 190)
  t.same(got.ledger.data.map((e: { kind: string, idempotencyKey: string }) => [e.kind, e.idempotencyKey]), [['order', 'o1']])
  t.equal(orderPoints(999_999_999_999.99, 1_000_000_000), 1_000_000_000, 'a huge order is capped')
  t.equal(orderPoints(10.1, 3), 30)
})
