import t from 'tap'
import { build, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { countingProbe, gate, keyed } from './support.js'
import { CLAIM_LEASE_MS } from '../../src/modules/idempotency/index.js'

t.test('a repeat while the first request still runs is 409 idempotency_key_in_progress', async (t) => {
  const hold = gate()
  const probe = countingProbe({ hold })
  const app = await build(t, { routes: probe.routes })
  const tenant = await makeTenant(app)
  const first = keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'slow-1')
  await probe.state.entered.opened
  const during = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'slow-1')
  hold.open()
  t.equal(during.statusCode, 409)
  t.equal(during.json().code, 'idempotency_key_in_progress')
  t.equal(during.headers['retry-after'], '1')
  t.equal((await first).statusCode, 201)
  t.equal(probe.state.runs, 1, 'the repeat did not run')
})

t.test('once the first request has answered, the repeat that met it running gets its answer', async (t) => {
  const hold = gate()
  const probe = countingProbe({ hold })
  const app = await build(t, { routes: probe.routes })
  const tenant = await makeTenant(app)
  const first = keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'slow-1')
  await probe.state.entered.opened
  await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'slow-1')
  hold.open()
  const answered = await first
  const retry = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'slow-1')
  t.equal(retry.statusCode, 201)
  t.same(retry.json(), answered.json())
  t.equal(probe.state.runs, 1)
})

t.test('a 5xx is not kept: a retry with the key runs again and its answer is kept', async (t) => {
  const probe = countingProbe({ failFirst: true })
  const app = await build(t, { routes: probe.routes })
  const tenant = await makeTenant(app)
  const failed = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'flaky-1')
  const retried = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'flaky-1')
  const again = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'flaky-1')
  t.equal(failed.statusCode, 500)
  t.equal(retried.statusCode, 201)
  t.same(retried.json(), { run: 2 })
  t.same(again.json(), { run: 2 }, 'the successful answer is kept')
  t.equal(probe.state.runs, 2)
})

t.test('a claim still running after its lease (its instance gone) no longer blocks the key', async (t) => {
  const clock = manualClock()
  const hold = gate()
  const probe = countingProbe({ hold })
  const app = await build(t, { clock, routes: probe.routes })
  const tenant = await makeTenant(app)
  const lost = keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'lost-1')
  await probe.state.entered.opened
  clock.advance(CLAIM_LEASE_MS + 1)
  const taken = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'lost-1')
  hold.open()
  t.equal(taken.statusCode, 201)
  t.same(taken.json(), { run: 2 })
  t.same((await lost).json(), { run: 1 }, 'the lost request still answers its caller')
  const later = await keyed(app, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'lost-1')
  t.same(later.json(), { run: 2 }, 'the answer kept is the one of the request that took the key over')
})
