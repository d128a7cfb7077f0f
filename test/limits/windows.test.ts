import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

async function setup (t: Parameters<typeof build>[0]) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const start = clock()
  /** `count` requests at `at` ms after the start, returning the last response. */
  const burst = async (at: number, count = 1) => {
    clock.set(start + at)
    let res
    for (let i = 0; i < count; i++) res = await send(app, tenant)
    return res!
  }
  return { burst }
}

function send (app: FastifyInstance, tenant: Tenant) {
  return call(app, { method: 'GET', url: '/v1/account/stores', key: tenant.key })
}

t.test('10 requests in one second pass, the 11th gets 429 with Retry-After and RateLimit headers', async (t) => {
  const { burst } = await setup(t)
  const tenth = await burst(0, 10)
  t.equal(tenth.statusCode, 200)
  t.equal(tenth.headers['ratelimit-limit'], '10')
  t.equal(tenth.headers['ratelimit-remaining'], '0')
  const eleventh = await burst(0)
  t.equal(eleventh.statusCode, 429)
  t.equal(eleventh.json().code, 'rate_limited')
  t.equal(eleventh.headers['retry-after'], '1')
  t.equal(eleventh.headers['ratelimit-limit'], '10')
  t.equal(eleventh.headers['ratelimit-remaining'], '0')
  t.equal(eleventh.headers['ratelimit-reset'], '1')
})

t.test('the one-second window still refuses at +999 ms and admits at exactly +1000 ms', async (t) => {
  const { burst } = await setup(t)
  await burst(0, 10)
  t.equal((await burst(999)).statusCode, 429)
  t.equal((await burst(1000)).statusCode, 200)
})

t.test('refused requests are not counted against the budget', async (t) => {
  const { burst } = await setup(t)
  await burst(0, 10)
  await burst(500, 5)
  const res = await burst(1000, 10)
  t.equal(res.statusCode, 200, 'all 10 of the next second pass')
})

t.test('50 requests in ten seconds pass, the 51st gets 429 until exactly +10 s', async (t) => {
  const { burst } = await setup(t)
  for (let s = 0; s < 5; s++) t.equal((await burst(s * 1000, 10)).statusCode, 200, `second ${s}`)
  const refused = await burst(5000)
  t.equal(refused.statusCode, 429)
  t.equal(refused.headers['retry-after'], '5')
  t.equal(refused.headers['ratelimit-limit'], '50')
  t.equal((await burst(9999)).statusCode, 429)
  t.equal((await burst(10_000)).statusCode, 200)
})

t.test('200 requests in a minute pass, the 201st gets 429 until exactly +60 s', async (t) => {
  const { burst } = await setup(t)
  // 10 a second for 5 seconds of every 10: never more than 10/s or 50/10 s, 200 by second 34.
  for (let block = 0; block < 4; block++) {
    for (let s = 0; s < 5; s++) t.equal((await burst(block * 10_000 + s * 1000, 10)).statusCode, 200, `block ${block} second ${s}`)
  }
  const refused = await burst(40_000)
  t.equal(refused.statusCode, 429)
  t.equal(refused.headers['retry-after'], '20')
  t.equal(refused.headers['ratelimit-limit'], '200')
  t.equal(refused.headers['ratelimit-remaining'], '0')
  t.equal((await burst(59_999)).statusCode, 429)
  t.equal((await burst(60_000)).statusCode, 200)
})
