import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'

const as = (app: FastifyInstance, tenant: Tenant) => (method: string, url: string, payload?: unknown) =>
  call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })

/** An affiliate with `rate`, one order with its code, and the referral that order recorded (or undefined). */
async function referralFor (
  app: FastifyInstance,
  order: { total: number | null, currency: string | null },
  rate = '0.1',
  rates?: Record<string, string>
) {
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  if (rates) await api('PUT', '/affiliates/settings', { usdRates: rates })
  const affiliate = (await api('POST', '/affiliates', { name: 'Ann', code: 'ann', commissionRate: rate })).json()
  const put = await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-1', ...order, affiliateCode: 'ANN' }] })
  if (put.json().upserted !== 1) throw new Error(put.body)
  const referrals = (await api('GET', `/affiliates/${affiliate.id}/referrals`)).json()
  return { tenant, api, affiliate, referral: referrals.data[0], referrals }
}

t.test('an affiliate is created, read, listed, changed and deleted, each change appending its event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  const created = await api('POST', '/affiliates', { name: 'Ann', code: 'ann-10', commissionRate: '0.0725', customerId: 'cust-1' })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { id: /^aff_/, name: 'Ann', code: 'ANN-10', commissionRate: '0.0725', customerId: 'cust-1' })
  const id = created.json().id
  t.equal((await api('GET', `/affiliates/${id}`)).json().code, 'ANN-10')
  const patched = await api('PATCH', `/affiliates/${id}`, { commissionRate: '0.1000', customerId: null })
  t.match(patched.json(), { commissionRate: '0.1', customerId: null, name: 'Ann' })
  t.equal((await api('GET', '/affiliates')).json().meta.total, 1)
  t.equal((await api('DELETE', `/affiliates/${id}`)).statusCode, 204)
  t.equal((await api('GET', `/affiliates/${id}`)).statusCode, 404)
  const events = (await api('GET', '/events?limit=10')).json().events.map((e: { type: string }) => e.type)
  t.same(events, ['affiliate.created', 'affiliate.updated', 'affiliate.deleted'])
})

t.test('two changes of different fields sent at once both hold, and the last updated event shows both', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  const id = (await api('POST', '/affiliates', { name: 'Ann', code: 'ann', commissionRate: '0.1' })).json().id
  const answers = await Promise.all([
    api('PATCH', `/affiliates/${id}`, { name: 'Ann B' }),
    api('PATCH', `/affiliates/${id}`, { commissionRate: '0.2' })
  ])
  t.same(answers.map((r) => r.statusCode), [200, 200])
  const stored = (await api('GET', `/affiliates/${id}`)).json()
  t.match(stored, { name: 'Ann B', commissionRate: '0.2' })
  const updates = (await api('GET', '/events?limit=10')).json().events.filter((e: { type: string }) => e.type === 'affiliate.updated')
  t.same(updates.at(-1).data, stored)
})

t.test('the same change sent three times at once is made, and announced, once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  const id = (await api('POST', '/affiliates', { name: 'Ann', code: 'ann', commissionRate: '0.1' })).json().id
  const answers = await Promise.all([1, 2, 3].map(() => api('PATCH', `/affiliates/${id}`, { name: 'Ann B' })))
  t.same(answers.map((r) => r.json().name), ['Ann B', 'Ann B', 'Ann B'])
  const types = (await api('GET', '/events?limit=10')).json().events.map((e: { type: string }) => e.type)
  t.same(types, ['affiliate.created', 'affiliate.updated'])
})

t.test('a code is unique in the store whatever its case: a second one is 409 conflict', async (t) => {
  const app = await sharedApp()
  const api = as(app, await makeTenant(app))
  await api('POST', '/affiliates', { name: 'Ann', code: 'SPRING', commissionRate: '0.1' })
  const dup = await api('POST', '/affiliates', { name: 'Bo', code: 'spring', commissionRate: '0.1' })
  t.equal(dup.statusCode, 409)
  t.equal(dup.json().code, 'conflict')
  const other = (await api('POST', '/affiliates', { name: 'Bo', code: 'summer', commissionRate: '0.1' })).json()
  const renamed = await api('PATCH', `/affiliates/${other.id}`, { code: 'Spring' })
  t.equal(renamed.statusCode, 409)
})

t.test('a rate above 1 or with five decimals, and odd names and codes are 400 invalid_request', async (t) => {
  const app = await sharedApp()
  const api = as(app, await makeTenant(app))
  for (const body of [
    { name: 'A', code: 'a', commissionRate: '1.5' },
    { name: 'A', code: 'a', commissionRate: '0.12345' },
    { name: 'A', code: 'a', commissionRate: 1.5 },
    { name: 'A', code: 'a', commissionRate: '-0.1' },
    { name: 'A', code: 'a b', commissionRate: '0.1' },
    { name: 'A', code: 'é', commissionRate: '0.1' },
    { name: 'A', code: 'x'.repeat(65), commissionRate: '0.1' },
    { name: 'x'.repeat(201), code: 'a', commissionRate: '0.1' },
    { name: 'A', code: 'a', commissionRate: '0.1', customerId: 'c'.repeat(65) }
  ]) {
    const res = await api('POST', '/affiliates', body)
    t.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80))
    t.equal(res.json().code, 'invalid_request')
  }
  t.equal((await api('GET', '/affiliates?updatedSince=10000-01-01T00:00:00Z')).statusCode, 400)
})

t.test('a commission of exactly 500 USD is paid in full and not marked capped', async (t) => {
  const { referral } = await referralFor(await sharedApp(), { total: 5000, currency: 'USD' })
  t.match(referral, {
    orderId: 'o-1',
    orderTotalCents: 500000,
    commissionCents: 50000,
    commissionUsdCents: 50000,
    capped: false,
    status: 'payable',
    commissionRate: '0.1'
  })
})

t.test('a commission just under 500 USD is paid as computed', async (t) => {
  const { referral } = await referralFor(await sharedApp(), { total: 4999.9, currency: 'USD' })
  t.match(referral, { commissionCents: 49999, capped: false })
})

t.test('a commission far over 500 USD is capped at 500 USD', async (t) => {
  const { referral } = await referralFor(await sharedApp(), { total: 999_999_999_999, currency: 'USD' }, '1')
  t.match(referral, { orderTotalCents: 99_999_999_999_900, commissionCents: 50000, commissionUsdCents: 50000, capped: true })
})

t.test('a commission that rounds up past the cap is capped, one that rounds down to it is not', async (t) => {
  const app = await sharedApp()
  // 10 % of 5000.05 is 500.005 USD: half a cent rounds up to 500.01, over the cap.
  t.match((await referralFor(app, { total: 5000.05, currency: 'USD' })).referral, { commissionCents: 50000, capped: true })
  // 10 % of 5000.04 is 500.004 USD: rounds down to exactly 500.00.
  t.match((await referralFor(app, { total: 5000.04, currency: 'USD' })).referral, { commissionCents: 50000, capped: false })
})

t.test('commissions are exact decimal arithmetic, rounded half up to the cent (no 0.1 + 0.2 drift)', async (t) => {
  const app = await sharedApp()
  // In floats 1.15 * 0.1 * 100 is 11.499999999999998; the exact 11.5 cents rounds half up to 12.
  t.match((await referralFor(app, { total: 1.15, currency: 'USD' })).referral, { orderTotalCents: 115, commissionCents: 12 })
  // 0.1 + 0.2 as a client computes it is stored 0.30; 50 % of it is 15 cents.
  t.match((await referralFor(app, { total: 0.1 + 0.2, currency: 'USD' }, '0.5')).referral, { orderTotalCents: 30, commissionCents: 15 })
  // 7.25 % of 0.07 is 0.5075 cents: rounds to 1 cent.
  t.match((await referralFor(app, { total: 0.07, currency: 'USD' }, '0.0725')).referral, { commissionCents: 1 })
})

t.test('an order in another currency is capped at what 500 USD is worth at the store\'s rate', async (t) => {
  const app = await sharedApp()
  // 10 % of 5000 EUR is 500 EUR = 540 USD: capped to the most EUR worth at most 500 USD, 462.96 EUR (499.9968 USD).
  const capped = (await referralFor(app, { total: 5000, currency: 'EUR' }, '0.1', { EUR: '1.08' })).referral
  t.match(capped, { currency: 'EUR', commissionCents: 46296, commissionUsdCents: 50000, usdRate: '1.08', capped: true, status: 'payable' })
  const under = (await referralFor(app, { total: 100_000, currency: 'JPY' }, '0.05', { JPY: '0.0067' })).referral
  t.match(under, { commissionCents: 500000, commissionUsdCents: 3350, capped: false })
})

t.test('with no rate for the currency the referral waits as pending_rate, and a rate set later settles it', async (t) => {
  const app = await sharedApp()
  const { api, affiliate, referral } = await referralFor(app, { total: 10_000, currency: 'GBP' }, '0.1')
  t.match(referral, { status: 'pending_rate', commissionCents: null, commissionUsdCents: null, capped: false })
  const saved = await api('PUT', '/affiliates/settings', { usdRates: { GBP: '1.25' } })
  t.same(saved.json().usdRates, { GBP: '1.25' })
  t.same((await api('GET', '/affiliates/settings')).json().usdRates, { GBP: '1.25' })
  const settled = (await api('GET', `/affiliates/${affiliate.id}/referrals`)).json().data[0]
  // 1000 GBP = 1250 USD: capped at 400 GBP.
  t.match(settled, { status: 'payable', commissionCents: 40000, commissionUsdCents: 50000, capped: true, usdRate: '1.25' })
  const types = (await api('GET', '/events?limit=20')).json().events.map((e: { type: string }) => e.type)
  t.same(types.filter((type: string) => type.startsWith('affiliate.referral')), [
    'affiliate.referral_recorded',
    'affiliate.referral_updated'
  ])
})

t.test('re-sending an order never records a second referral; a changed total recomputes the one it has', async (t) => {
  const app = await sharedApp()
  const { api, affiliate } = await referralFor(app, { total: 100, currency: 'USD' })
  await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-1', total: 100, currency: 'USD', affiliateCode: 'ANN' }] })
  await api('PUT', '/orders', {
    orders: [{ platformOrderId: 'o-1', total: 100, currency: 'USD', affiliateCode: 'ann', customerName: 'changed' }]
  })
  let list = (await api('GET', `/affiliates/${affiliate.id}/referrals`)).json()
  t.equal(list.meta.total, 1)
  t.equal(list.data[0].commissionCents, 1000)
  await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-1', total: 200, currency: 'USD', affiliateCode: 'ANN' }] })
  list = (await api('GET', `/affiliates/${affiliate.id}/referrals`)).json()
  t.equal(list.meta.total, 1)
  t.equal(list.data[0].commissionCents, 2000)
  const types = (await api('GET', '/events?limit=50')).json().events.map((e: { type: string }) => e.type)
  t.equal(types.filter((type: string) => type === 'affiliate.referral_recorded').length, 1)
  t.equal((await api('GET', '/orders/o-1')).json().affiliateCode, 'ANN')
})

t.test('an order with an unknown code keeps the code and records no referral', async (t) => {
  const app = await sharedApp()
  const { api, affiliate } = await referralFor(app, { total: 10, currency: 'USD' })
  const res = await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-2', total: 10, currency: 'USD', affiliateCode: 'NOBODY' }] })
  t.equal(res.json().upserted, 1)
  t.equal((await api('GET', '/orders/o-2')).json().affiliateCode, 'NOBODY')
  t.equal((await api('GET', `/affiliates/${affiliate.id}/referrals`)).json().meta.total, 1)
  const long = await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-3', affiliateCode: 'x'.repeat(65) }] })
  t.match(long.json(), { failed: 1, errors: [{ code: 'invalid_item' }] })
})

t.test('USD rates: USD itself, zero, lower-case codes and too many decimals are 400 invalid_request', async (t) => {
  const app = await sharedApp()
  const api = as(app, await makeTenant(app))
  for (
    const usdRates of [{ USD: '1' }, { EUR: '0' }, { eur: '1.1' }, { EUR: '1.123456789' }, { EUR: 1.1 }, { EUR: '1e3' }, { EUR: '9999999' }]
  ) {
    const res = await api('PUT', '/affiliates/settings', { usdRates })
    t.equal(res.statusCode, 400, JSON.stringify(usdRates))
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('a key limited to affiliates:read lists affiliates but cannot create one; an editor cannot write them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const reader = await makeKey(app, tenant, 'admin', ['affiliates:read'])
  const editor = await makeKey(app, tenant, 'editor')
  t.equal((await call(app, { method: 'GET', url: '/v1/affiliates', key: reader.secret, store: tenant.storeId })).statusCode, 200)
  const write = await call(app, {
    method: 'POST',
    url: '/v1/affiliates',
    key: reader.secret,
    store: tenant.storeId,
    payload: { name: 'A', code: 'a', commissionRate: '0.1' }
  })
  t.equal(write.json().code, 'insufficient_scope')
  const byEditor = await call(app, {
    method: 'PUT',
    url: '/v1/affiliates/settings',
    key: editor.secret,
    store: tenant.storeId,
    payload: { usdRates: {} }
  })
  t.equal(byEditor.json().code, 'role_forbidden')
})

t.test('one store cannot read, change or earn from another store\'s affiliates', async (t) => {
  const app = await sharedApp()
  const { affiliate } = await referralFor(app, { total: 10, currency: 'USD' })
  const other = await makeTenant(app)
  const api = as(app, other)
  t.equal((await api('GET', `/affiliates/${affiliate.id}`)).statusCode, 404)
  t.equal((await api('PATCH', `/affiliates/${affiliate.id}`, { name: 'x' })).statusCode, 404)
  t.equal((await api('DELETE', `/affiliates/${affiliate.id}`)).statusCode, 404)
  t.equal((await api('GET', `/affiliates/${affiliate.id}/referrals`)).statusCode, 404)
  await api('PUT', '/orders', { orders: [{ platformOrderId: 'theirs', total: 10, currency: 'USD', affiliateCode: 'ANN' }] })
  t.equal((await api('GET', '/affiliates')).json().meta.total, 0)
  // The same code is free in another store.
  t.equal((await api('POST', '/affiliates', { name: 'Ann', code: 'ANN', commissionRate: '0.1' })).statusCode, 201)
})
