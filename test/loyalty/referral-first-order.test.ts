import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { account, freshKey, makeCustomers, setSettings } from './support.js'

/** A store whose customer maya referred an address that no customer has yet (the usual case). */
async function referred (refereeEmail: string) {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'maya', email: 'maya@example.com' }])
  await setSettings(app, tenant.storeId, { referralReward: { referrerPoints: 500, refereePoints: 250 } })
  const res = await call(app, {
    method: 'POST',
    url: '/v1/loyalty/referrals',
    key: tenant.key,
    store: tenant.storeId,
    payload: { referrerCustomerId: ids.maya, refereeEmail }
  })
  const order = (orders: Array<Record<string, unknown>>) =>
    call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders } })
  return { app, tenant, maya: ids.maya, referral: res.json(), order }
}

t.test('a new customer\'s first order, with only its address, completes the referral and rewards both', async (t) => {
  const { app, tenant, maya, order } = await referred('Sam@Example.com')
  t.equal(
    (await order([{ platformOrderId: 'first', customerEmail: 'sam@EXAMPLE.com', customerName: 'Sam Lee', total: 20 }])).statusCode,
    200
  )
  const check = await freshKey(app, tenant)
  t.equal((await account(app, check, maya)).balance, 500)
  const list = (await call(app, { method: 'GET', url: '/v1/loyalty/referrals', key: check.key, store: check.storeId })).json()
  t.match(list.data, [{ status: 'completed', orderId: 'first', refereeCustomerId: /^cus_/ }])
  const sam = list.data[0].refereeCustomerId
  t.equal((await account(app, check, sam)).balance, 250)
  const customer = (await call(app, { method: 'GET', url: `/v1/customers/${sam}`, key: check.key, store: check.storeId })).json()
  t.match(customer, { email: 'sam@EXAMPLE.com', firstName: 'Sam', lastName: 'Lee', platformCustomerId: null })
  const stored = (await call(app, { method: 'GET', url: '/v1/orders/first', key: check.key, store: check.storeId })).json()
  t.equal(stored.customerId, sam, 'the order is linked to the customer it made')
  const rewards = await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.referral_reward' })
  t.equal(rewards.length, 2)
})

t.test('later orders of a referred address make no second customer and no second reward', async (t) => {
  const { app, tenant, maya, order } = await referred('sam@example.com')
  await order([{ platformOrderId: 'first', customerEmail: 'sam@example.com' }, {
    platformOrderId: 'same-batch',
    customerEmail: 'SAM@example.com'
  }])
  await order([{ platformOrderId: 'later', customerEmail: 'Sam@Example.com' }])
  const customers = await app.db('customers').where({ store_env_id: tenant.storeId, email_key: 'sam@example.com' })
  t.equal(customers.length, 1)
  const linked = await app.db('orders').where({ store_env_id: tenant.storeId }).orderBy('platform_order_id').select(
    'platform_order_id',
    'customer_id'
  )
  t.same(
    linked.map((o: { customer_id: string }) => o.customer_id),
    [customers[0].id, customers[0].id, customers[0].id],
    'every order is linked to it'
  )
  t.equal((await account(app, await freshKey(app, tenant), maya)).balance, 500)
  t.equal((await app.db('events').where({ store_env_id: tenant.storeId, type: 'loyalty.referral_reward' })).length, 2)
})

t.test('an order of an address nobody referred makes no customer', async (t) => {
  const { app, tenant, order } = await referred('sam@example.com')
  await order([{ platformOrderId: 'stranger', customerEmail: 'someone@example.com' }])
  t.equal((await app.db('customers').where({ store_env_id: tenant.storeId, email_key: 'someone@example.com' })).length, 0)
  t.equal((await app.db('loyalty_referrals').where({ store_env_id: tenant.storeId, status: 'pending' })).length, 1)
})
