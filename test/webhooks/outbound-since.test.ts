import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'

/** Issue 45, point 10: the outbound webhook lists take `updatedSince` as the other lists do. */

t.test('outbound webhooks with updatedSince are those created or whose status changed at or after it', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const create = async (url: string) =>
    (await call(app, {
      method: 'POST',
      url: '/v1/outbound-webhooks',
      key: tenant.key,
      store: tenant.storeId,
      payload: { url, events: ['*'] }
    })).json()
  await create('http://127.0.0.1:9/old')
  clock.advance(60_000)
  const since = new Date(clock()).toISOString()
  const recent = await create('http://127.0.0.1:9/new')
  const res = await call(app, { method: 'GET', url: `/v1/outbound-webhooks?updatedSince=${since}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().data.map((w: { id: string }) => w.id), [recent.id])
  t.equal(res.json().meta.total, 1)
})

t.test('the deliveries of an outbound webhook take updatedSince: none made at or after it, none listed', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/x', events: ['*'] }
  })).json()
  const since = new Date(clock()).toISOString()
  const res = await call(app, {
    method: 'GET',
    url: `/v1/outbound-webhooks/${hook.id}/deliveries?updatedSince=${since}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().data, [])
})
