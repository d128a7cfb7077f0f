import t from 'tap'
import { build, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { countingProbe, keyed } from './support.js'
import { KEY_TTL_MS } from '../../src/modules/idempotency/index.js'

t.test('a key is answered again within 24 hours', async (t) => {
  const clock = manualClock()
  const probe = countingProbe()
  const app = await build(t, { clock, routes: probe.routes })
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'day-1')
  clock.advance(KEY_TTL_MS - 1)
  const res = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'day-1')
  t.same(res.json(), { run: 1 })
  t.equal(probe.state.runs, 1)
})

t.test('after 24 hours the key is forgotten: the same request runs again', async (t) => {
  const clock = manualClock()
  const probe = countingProbe()
  const app = await build(t, { clock, routes: probe.routes })
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'day-1')
  clock.advance(KEY_TTL_MS)
  const res = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'day-1')
  t.equal(res.statusCode, 201)
  t.same(res.json(), { run: 2 })
  t.notOk(res.headers['idempotent-replayed'])
})

t.test('after 24 hours the key may be used for another request', async (t) => {
  const clock = manualClock()
  const probe = countingProbe()
  const app = await build(t, { clock, routes: probe.routes })
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'day-1')
  clock.advance(KEY_TTL_MS)
  const res = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 2 }, 'day-1')
  t.equal(res.statusCode, 201)
})

t.test('the cleanup job deletes the rows of keys older than 24 hours and keeps the others', async (t) => {
  const clock = manualClock()
  const probe = countingProbe()
  const app = await build(t, { clock, routes: probe.routes })
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'old')
  clock.advance(KEY_TTL_MS)
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'new')
  await app.services.idempotencyKeys.purgeExpired()
  const rows = await app.db('idempotency_keys').where({ org_id: tenant.orgId }).count({ n: '*' })
  t.equal(Number(rows[0].n), 1)
  t.same((await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'new')).json(), { run: 2 }, 'the recent key still answers')
})
