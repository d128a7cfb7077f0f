import t from 'tap'
import { build, call, manualClock, onMysql, sharedApp, testConfig } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { createKnex } from '../../src/db.js'
import { buildServices } from '../../src/services.js'
import { account, freshKey, makeCustomers, setSettings } from './support.js'

const refer = (app: Parameters<typeof call>[0], as: { key: string, storeId: string }, payload: Record<string, unknown>) =>
  call(app, { method: 'POST', url: '/v1/loyalty/referrals', key: as.key, store: as.storeId, payload })

t.test('a referral is completed by the referee\'s first order: both are rewarded once, each with loyalty.referral_reward', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, storeId: tenant.storeId }
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'maya', email: 'maya@example.com', firstName: 'Maya' }, {
    platformCustomerId: 'sam',
    email: 'sam@example.com'
  }])
  await setSettings(app, tenant.storeId, { referralReward: { referrerPoints: 500, refereePoints: 250 } })
  const created = await refer(app, as, { referrerCustomerId: ids.maya, refereeEmail: 'Sam@Example.com' })
  t.equal(created.statusCode, 201)
  t.match(created.json(), {
    id: /^ref_/,
    referrerCustomerId: ids.maya,
    refereeEmail: 'Sam@Example.com',
    status: 'pending',
    completedAt: null
  })
  const order = { platformOrderId: 'first', customerEmail: 'sam@example.com', total: 20 }
  await call(app, { method: 'PUT', url: '/v1/orders', ...{ key: tenant.key, store: tenant.storeId }, payload: { orders: [order] } })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    ...{ key: tenant.key, store: tenant.storeId },
    payload: { orders: [{ ...order, total: 30 }, { platformOrderId: 'second', customerEmail: 'sam@example.com' }] }
  })
  const check = await freshKey(app, tenant)
  t.equal((await account(app, check, ids.maya)).balance, 500)
  t.equal((await account(app, check, ids.sam)).balance, 250)
  const list = (await call(app, { method: 'GET', url: '/v1/loyalty/referrals?status=completed', key: check.key, store: check.storeId }))
    .json()
  t.match(list.data, [{ status: 'completed', refereeCustomerId: ids.sam, orderId: 'first' }])
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.referral_reward' }).orderBy('id')
  t.same(
    events.map((e: { data: string }) => JSON.parse(e.data)).map((
      d: Record<string, unknown>
    ) => [d.role, d.customerId, d.points, d.referredEmail]),
    [['referrer', ids.maya, 500, 'Sam@Example.com'], ['referee', ids.sam, 250, 'Sam@Example.com']]
  )
})

t.test('a referral of an address that ordered before, of the referrer\'s own, or referred twice is a conflict', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, storeId: tenant.storeId }
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'maya', email: 'maya@example.com' }])
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o', customerEmail: 'Old@Example.com' }] }
  })
  t.equal((await refer(app, as, { referrerCustomerId: ids.maya, refereeEmail: 'new@example.com' })).statusCode, 201)
  for (const refereeEmail of ['OLD@example.com', 'maya@example.com', 'new@example.com']) {
    const res = await refer(app, as, { referrerCustomerId: ids.maya, refereeEmail })
    t.equal(res.statusCode, 409, refereeEmail)
    t.equal(res.json().code, 'conflict')
  }
  t.equal((await refer(app, as, { referrerCustomerId: 'cus_unknown', refereeEmail: 'x@example.com' })).statusCode, 404)
  t.equal(
    (await refer(app, await freshKey(app, tenant), { referrerCustomerId: ids.maya, refereeEmail: 'not an address' })).json().code,
    'invalid_request'
  )
})

const BIRTHDAY = Date.parse('2027-02-28T09:00:00Z')

/**
 * Birthday grants in one store. A pass covers every store of the database, and other test files' stores (their
 * customers and settings made at the same time) may have birthdays due on the same days, so a test counts its own.
 */
async function birthdayGrants (app: Awaited<ReturnType<typeof build>>, storeId: string): Promise<number> {
  return Number((await app.db('loyalty_ledger').where({ store_env_id: storeId, kind: 'birthday' }).count({ n: '*' }))[0].n)
}

t.test('concurrent birthday passes on several workers grant each customer once, and a restart grants nothing more', async (t) => {
  const clock = manualClock(BIRTHDAY)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  await setSettings(app, tenant.storeId, { birthdayReward: { points: 200 } })
  const born = Array.from(
    { length: 30 },
    (_, i) => ({ platformCustomerId: `b${i}`, email: `b${i}@example.com`, birthday: i % 2 ? { month: 2, day: 28 } : { month: 2, day: 29 } })
  )
  const ids = await makeCustomers(app, tenant.storeId, [...born, { platformCustomerId: 'march', birthday: { month: 3, day: 1 } }, {
    platformCustomerId: 'none'
  }])
  // A second worker process: its own connection pool and services over the same database.
  const otherDb = onMysql ? createKnex(testConfig()) : app.db
  t.teardown(async () => { if (otherDb !== app.db) await otherDb.destroy() })
  const other = buildServices({ db: otherDb, clock, config: testConfig(), redis: null })
  await Promise.all([app.services.birthdays.run(), other.birthdays.run(), app.services.birthdays.run(), other.birthdays.run()])
  const entries = await app.db('loyalty_ledger').where({ store_env_id: tenant.storeId, kind: 'birthday' }).select(
    'customer_id',
    'idempotency_key',
    'points'
  )
  t.equal(entries.length, 30)
  t.equal(new Set(entries.map((e: { customer_id: string }) => e.customer_id)).size, 30, 'once per customer')
  t.ok(entries.every((e: { idempotency_key: string, points: number }) => e.idempotency_key === '2027' && Number(e.points) === 200))
  t.notOk(entries.some((e: { customer_id: string }) => e.customer_id === ids.march || e.customer_id === ids.none))
  const restarted = buildServices({ db: app.db, clock, config: testConfig(), redis: null })
  clock.advance(86_400_000)
  await restarted.birthdays.run()
  t.equal(await birthdayGrants(app, tenant.storeId), 31, 'the next day (1 March), a restarted worker grants only that day\'s birthday')
  t.equal(
    Number((await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.birthday_reward' }).count({ n: '*' }))[0].n),
    31
  )
  const reader = await makeKey(app, tenant, 'viewer', ['loyalty:read'])
  const polled = await call(app, {
    method: 'GET',
    url: '/v1/connectors/triggers/loyalty.birthday_reward?limit=1',
    key: reader.secret,
    store: tenant.storeId
  })
  t.match(polled.json(), [{
    type: 'loyalty.birthday_reward',
    loyaltyAccountId: /^lya_/,
    customerId: ids.march,
    customerEmail: null,
    points: 200,
    balance: 200,
    reason: 'birthday',
    year: 2027
  }])
  clock.set(Date.parse('2028-02-28T09:00:00Z'))
  await app.services.birthdays.run()
  t.equal(await birthdayGrants(app, tenant.storeId), 31 + 15, 'in a leap year 28 February is only for those born that day')
  clock.advance(86_400_000)
  await app.services.birthdays.run()
  t.equal(await birthdayGrants(app, tenant.storeId), 31 + 30, '…and 29 February for the others')
})

t.test('a birthday is granted for the day it fell on within the grace days, not for a store without the reward', async (t) => {
  const clock = manualClock(Date.parse('2027-01-01T00:30:00Z'))
  const app = await build(t, { clock })
  const on = await makeTenant(app)
  const off = await makeTenant(app)
  await setSettings(app, on.storeId, { birthdayReward: { points: 5 } })
  const ids = await makeCustomers(app, on.storeId, [{ platformCustomerId: 'nye', birthday: { month: 12, day: 31, year: 1990 } }, {
    platformCustomerId: 'late',
    birthday: { month: 12, day: 20 }
  }])
  await makeCustomers(app, off.storeId, [{ platformCustomerId: 'nye', birthday: { month: 12, day: 31 } }])
  await app.services.birthdays.run()
  t.equal(await birthdayGrants(app, on.storeId), 1)
  t.equal(await birthdayGrants(app, off.storeId), 0, 'none where the store gives no birthday reward')
  const entry = await app.db('loyalty_ledger').where({ customer_id: ids.nye }).first()
  t.equal(entry.idempotency_key, '2026', 'the year of the birthday, not of the pass')
})
