import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'

// Nothing listens on port 1: Redis is configured but unreachable from the start.
const UNREACHABLE = { redisUrl: 'redis://127.0.0.1:1' }

t.test('with Redis unreachable, requests are still served and still limited per instance', async (t) => {
  const app = await build(t, { clock: manualClock(), config: UNREACHABLE })
  const tenant = await makeTenant(app)
  for (let i = 0; i < 10; i++) {
    const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
    if (res.statusCode !== 200) t.fail(`request ${i + 1}: ${res.statusCode} ${res.body}`)
  }
  const refused = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal(refused.statusCode, 429, 'the limit never fails open')
  t.equal(refused.json().code, 'rate_limited')
})

t.test('with Redis unreachable, health stays 200 and reports the Redis check as failing', async (t) => {
  const app = await build(t, { config: UNREACHABLE })
  const res = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', checks: { database: 'ok', redis: 'error' } })
})
