import t from 'tap'
import { build, call, manualClock, TEST_REDIS_URL } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { base62 } from '../../src/lib/ids.js'

t.test('each key has its own budget: one exhausted key does not limit another', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const other = await makeKey(app, tenant, 'admin')
  for (let i = 0; i < 10; i++) await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })).statusCode, 429)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: other.secret })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['ratelimit-remaining'], '9')
})

t.test('two app instances sharing one Redis enforce one budget per key', async (t) => {
  const clock = manualClock()
  const prefix = `eh:test:${base62(10)}:`
  const config = { redisUrl: TEST_REDIS_URL }
  const first = await build(t, { clock, redisPrefix: prefix, config })
  const second = await build(t, { clock, redisPrefix: prefix, config })
  const tenant = await makeTenant(first)
  for (let i = 0; i < 10; i++) {
    const app = i % 2 === 0 ? first : second
    t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })).statusCode, 200, `request ${i + 1}`)
  }
  for (const app of [first, second]) {
    const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
    t.equal(res.statusCode, 429)
    t.equal(res.headers['retry-after'], '1')
  }
  clock.advance(1000)
  t.equal((await call(second, { method: 'GET', url: '/v1/account/stores', key: tenant.key })).statusCode, 200)
})

t.test('instances with different Redis prefixes keep separate budgets', async (t) => {
  const clock = manualClock()
  const config = { redisUrl: TEST_REDIS_URL }
  const first = await build(t, { clock, config })
  const second = await build(t, { clock, config })
  const tenant = await makeTenant(first)
  for (let i = 0; i < 10; i++) await call(first, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
  t.equal((await call(first, { method: 'GET', url: '/v1/account/stores', key: tenant.key })).statusCode, 429)
  t.equal((await call(second, { method: 'GET', url: '/v1/account/stores', key: tenant.key })).statusCode, 200)
})
