import t from 'tap'
import { build, call, eventsOf, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { freshKey, makeCustomers } from './support.js'

/**
 * docs/contract/event-visibility.md#every-change-appends-an-event: every list takes `updatedSince`, and every change
 * appends an event.
 */

async function referralStore (t: Parameters<typeof build>[0]) {
  const clock = manualClock(Date.parse('2026-11-20T10:00:00Z'))
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'maya', email: 'maya@example.com' }, {
    platformCustomerId: 'ana',
    email: 'ana@example.com'
  }])
  const refer = async (refereeEmail: string) => {
    const res = await call(app, {
      method: 'POST',
      url: '/v1/loyalty/referrals',
      key: tenant.key,
      store: tenant.storeId,
      payload: { referrerCustomerId: ids.maya, refereeEmail }
    })
    t.equal(res.statusCode, 201)
    return res.json() as { id: string, updatedAt: string }
  }
  const list = async (query: string) => {
    const as = await freshKey(app, tenant)
    return (await call(app, { method: 'GET', url: `/v1/loyalty/referrals${query}`, key: as.key, store: as.storeId })).json()
  }
  const referralEvents = () => eventsOf(app, tenant.storeId, 'loyalty.referral.')
  return { clock, app, tenant, ids, refer, list, referralEvents }
}

t.test('referrals listed with updatedSince are those changed since, oldest change first, completion included', async (t) => {
  const { clock, app, tenant, refer, list } = await referralStore(t)
  const first = await refer('ana@example.com')
  clock.advance(60_000)
  const second = await refer('ben@example.com')
  clock.advance(60_000)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'ana@example.com', platformCustomerId: 'ana' }] }
  })
  const since = (await list(`?updatedSince=${encodeURIComponent(second.updatedAt)}`)).data
  t.same(since.map((r: { id: string }) => r.id), [second.id, first.id], 'the new one, then the one completed after it')
  t.match(since[1], { status: 'completed', updatedAt: '2026-11-20T10:02:00.000Z' })
  t.same((await list('')).data.map((r: { id: string }) => r.id), [second.id, first.id], 'without it, newest first as before')
  t.same((await list('?updatedSince=2026-11-21T00:00:00.000Z')).data, [])
})

t.test('updatedSince on referrals that is not a date is a 400, not an unfiltered list', async (t) => {
  const { list } = await referralStore(t)
  for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '99999-01-01T00:00:00Z']) {
    t.match(await list(`?updatedSince=${bad}`), { code: 'invalid_request' }, bad)
  }
})

t.test('a referral appends loyalty.referral.created, its completion loyalty.referral.updated', async (t) => {
  const { app, tenant, refer, referralEvents } = await referralStore(t)
  const made = await refer('ana@example.com')
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'ana@example.com', platformCustomerId: 'ana' }] }
  })
  t.match(await referralEvents(), [
    { type: 'loyalty.referral.created', data: { id: made.id, status: 'pending', refereeEmail: 'ana@example.com' } },
    { type: 'loyalty.referral.updated', data: { id: made.id, status: 'completed', orderId: 'o1' } }
  ])
})

t.test('erasing a referee withdraws a pending referral with loyalty.referral.deleted and leaves no address in its events', async (t) => {
  const { app, tenant, ids, refer, referralEvents } = await referralStore(t)
  const made = await refer('ana@example.com')
  t.equal((await call(app, { method: 'DELETE', url: `/v1/customers/${ids.ana}`, key: tenant.key, store: tenant.storeId })).statusCode, 204)
  const events = await referralEvents()
  t.match(events, [{ type: 'loyalty.referral.created', data: { id: made.id } }, {
    type: 'loyalty.referral.deleted',
    data: { id: made.id }
  }])
  t.notOk(JSON.stringify(events).includes('ana@example.com'), 'the address is gone from the log')
})
