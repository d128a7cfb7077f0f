import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'

const BAD = 'svc_' + 'x'.repeat(40)

t.test('after 30 failed attempts in a minute an IP gets 429 even with a valid key', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const from = (remoteAddress: string, key: string) => call(app, { method: 'GET', url: '/v1/account/stores', key, remoteAddress })
  for (let i = 0; i < 30; i++) {
    const res = await from('198.51.100.9', BAD)
    if (res.statusCode !== 401) t.fail(`attempt ${i + 1}: ${res.statusCode}`)
  }
  const blocked = await from('198.51.100.9', tenant.key)
  t.equal(blocked.statusCode, 429)
  t.equal(blocked.json().code, 'rate_limited')
  t.ok(Number(blocked.headers['retry-after']) > 0)
  t.equal((await from('198.51.100.10', tenant.key)).statusCode, 200, 'another IP is not affected')
  clock.advance(60_000)
  t.equal((await from('198.51.100.9', tenant.key)).statusCode, 200, 'the IP is admitted again after the window')
})

t.test('missing credentials count as failed attempts', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  for (let i = 0; i < 30; i++) await call(app, { method: 'GET', url: '/v1/account/stores', remoteAddress: '198.51.100.20' })
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, remoteAddress: '198.51.100.20' })
  t.equal(res.statusCode, 429)
})

t.test('successful requests do not count as failed attempts', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const statuses: number[] = []
  for (let i = 0; i < 40; i++) {
    clock.advance(1000)
    const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key, remoteAddress: '198.51.100.30' })
    statuses.push(res.statusCode)
  }
  t.same(statuses, Array(40).fill(200), '40 good requests from one IP were all served')
})
