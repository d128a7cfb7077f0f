import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'

const BAD = 'svc_' + 'x'.repeat(40)
const stores = (app: FastifyInstance, remoteAddress: string, key?: string) =>
  call(app, { method: 'GET', url: '/v1/account/stores', key, remoteAddress })

function tally (statuses: number[]) {
  return statuses.reduce<Record<number, number>>((seen, s) => ({ ...seen, [s]: (seen[s] ?? 0) + 1 }), {})
}

t.test('after 30 failed attempts in a minute an IP gets 429 for further bad keys, with Retry-After', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  for (let i = 0; i < 30; i++) {
    const res = await stores(app, '198.51.100.9', BAD)
    if (res.statusCode !== 401) t.fail(`attempt ${i + 1}: ${res.statusCode}`)
  }
  const blocked = await stores(app, '198.51.100.9', BAD)
  t.equal(blocked.statusCode, 429)
  t.equal(blocked.json().code, 'rate_limited')
  t.ok(Number(blocked.headers['retry-after']) > 0)
  t.equal((await stores(app, '198.51.100.10', BAD)).statusCode, 401, 'another IP is not affected')
  clock.advance(60_000)
  t.equal((await stores(app, '198.51.100.9', BAD)).statusCode, 401, 'the IP is admitted again after the window')
})

t.test('a valid key is served from an IP whose failure budget others used up', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  for (let i = 0; i < 30; i++) await stores(app, '198.51.100.11', BAD)
  t.equal((await stores(app, '198.51.100.11', BAD)).statusCode, 429, 'the budget is used up')
  t.equal((await stores(app, '198.51.100.11', tenant.key)).statusCode, 200)
})

t.test('150 concurrent bad keys from one IP get at most 30 answers of 401, the rest 429', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const answers = await Promise.all(Array.from({ length: 150 }, () => stores(app, '198.51.100.12', BAD)))
  t.same(tally(answers.map((r) => r.statusCode)), { 401: 30, 429: 120 })
})

t.test('valid keys sent in the middle of a flood of bad keys from the same IP are all served', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const flood = Array.from({ length: 60 }, (_, i) => stores(app, '198.51.100.13', i % 10 === 9 ? tenant.key : BAD))
  const statuses = (await Promise.all(flood)).map((r) => r.statusCode)
  t.same(tally(statuses.filter((_, i) => i % 10 === 9)), { 200: 6 }, 'every valid key is served')
  t.same(tally(statuses.filter((_, i) => i % 10 !== 9)), { 401: 30, 429: 24 }, 'bad keys still stop at 30')
})

t.test('missing credentials count as failed attempts', async (t) => {
  const app = await build(t, { clock: manualClock() })
  for (let i = 0; i < 30; i++) await stores(app, '198.51.100.20')
  const res = await stores(app, '198.51.100.20')
  t.equal(res.statusCode, 429)
})

t.test('successful requests do not count as failed attempts', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const statuses: number[] = []
  for (let i = 0; i < 40; i++) {
    clock.advance(1000)
    statuses.push((await stores(app, '198.51.100.30', tenant.key)).statusCode)
  }
  t.same(statuses, Array(40).fill(200), '40 good requests from one IP were all served')
  t.equal((await stores(app, '198.51.100.30', BAD)).statusCode, 401, 'the IP still has its whole failure budget')
})
