import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

async function setup () {
  const app: FastifyInstance = await sharedApp()
  const tenant = await makeTenant(app)
  return (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
}

t.test('a commission rate sent as a JSON number is accepted and answered as its decimal string', async (t) => {
  const api = await setup()
  const created = await api('POST', '/affiliates', { name: 'Ann', code: 'ann', commissionRate: 0.5 })
  t.equal(created.statusCode, 201, created.body)
  t.equal(created.json().commissionRate, '0.5')
  const patched = await api('PATCH', `/affiliates/${created.json().id}`, { commissionRate: 0.0725 })
  t.equal(patched.json().commissionRate, '0.0725')
})

t.test('a number rate earns the exact commission: 0.1 of 0.30 is 3 cents, not a float\'s rounding', async (t) => {
  const api = await setup()
  const affiliate = (await api('POST', '/affiliates', { name: 'Ann', code: 'ann', commissionRate: 0.1 })).json()
  await api('PUT', '/orders', { orders: [{ platformOrderId: 'o-1', total: 0.3, currency: 'USD', affiliateCode: 'ANN' }] })
  const referral = (await api('GET', `/affiliates/${affiliate.id}/referrals`)).json().data[0]
  t.match(referral, { commissionRate: '0.1', orderTotalCents: 30, commissionCents: 3 })
})

t.test('a number rate out of range or with more than four decimals is a 400', async (t) => {
  const api = await setup()
  for (const commissionRate of [1.5, -0.1, 0.12345, 1e-7]) {
    const res = await api('POST', '/affiliates', { name: 'Ann', code: `a${String(commissionRate).replace(/\W/g, '')}`, commissionRate })
    t.equal(res.statusCode, 400, String(commissionRate))
    t.equal(res.json().code, 'invalid_request')
  }
})
