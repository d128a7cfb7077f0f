import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import { randomUUID } from 'node:crypto'
import { RedisStore, type Window } from '../../src/lib/rate-limiter.js'
import { TEST_REDIS_URL } from '../helper.js'

const WINDOWS: Window[] = [{ ms: 1_000, limit: 3 }, { ms: 10_000, limit: 5 }]
const T0 = 1_764_000_000_000

async function setup (t: Test) {
  const redis = new Redis(TEST_REDIS_URL)
  const prefix = `eh-test:${randomUUID()}:`
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
  })
  const store = new RedisStore(redis, prefix)
  const hit = async (at: number, markers: string[] = []) => store.hit('k', WINDOWS, { at }, markers)
  return { redis, prefix, store, hit }
}

t.test('each window counts the entries after its start, and names its oldest one', async (t) => {
  const { hit } = await setup(t)
  await hit(T0)
  await hit(T0 + 500)
  const seen = await hit(T0 + 1_200)
  t.same(seen.counts, [{ count: 1, oldest: T0 + 500 }, { count: 2, oldest: T0 }])
})

t.test('a refused request is not written to the log', async (t) => {
  const { hit } = await setup(t)
  for (let i = 0; i < 3; i++) await hit(T0)
  t.same((await hit(T0 + 999)).counts[0], { count: 3, oldest: T0 }, 'the fourth in the second is refused')
  t.same((await hit(T0 + 1_000)).counts, [{ count: 0, oldest: null }, { count: 3, oldest: T0 }], 'and was not counted')
})

t.test('an entry older than the newest (another instance\'s clock behind) is counted in its place', async (t) => {
  const { hit } = await setup(t)
  await hit(T0 + 2_000)
  await hit(T0 + 500)
  const seen = await hit(T0 + 1_400)
  t.same(seen.counts, [{ count: 2, oldest: T0 + 500 }, { count: 2, oldest: T0 + 500 }])
})

t.test('entries older than the longest window are dropped from the log and it expires with the window', async (t) => {
  const { redis, prefix, hit } = await setup(t)
  await hit(T0)
  await hit(T0 + 1)
  await hit(T0 + 10_000)
  t.equal((await redis.getBuffer(`${prefix}k`))!.length, 16, 'two of 8 bytes each: the first is gone')
  const ttl = await redis.pttl(`${prefix}k`)
  t.ok(ttl > 9_000 && ttl <= 10_000, `expires within the longest window (${ttl} ms)`)
})

t.test('remove takes one entry of that millisecond out and leaves the others', async (t) => {
  const { store, hit } = await setup(t)
  await hit(T0)
  await hit(T0 + 100)
  await hit(T0 + 100)
  await hit(T0 + 1_100)
  await store.remove('k', { at: T0 + 100 })
  await store.remove('k', { at: T0 + 150 })
  t.same((await hit(T0 + 1_200)).counts[1], { count: 3, oldest: T0 }, 'one of the two at +100 ms went, nothing else')
})

t.test('the markers asked for come back in order, empty when missing', async (t) => {
  const { redis, prefix, hit } = await setup(t)
  await redis.set(`${prefix}m1`, 'one')
  const seen = await hit(T0, [`${prefix}m1`, `${prefix}missing`])
  t.same(seen.markers, ['one', ''])
})

/** The commands the store sends from now on, by name; a first call has loaded the script (else EVAL follows). */
async function commandsSent (redis: Redis, store: RedisStore): Promise<string[]> {
  await store.hit('warm-up', WINDOWS, { at: T0 })
  const sent: string[] = []
  const send = redis.sendCommand.bind(redis)
  redis.sendCommand = (command, stream) => { sent.push(command.name); return send(command, stream) }
  return sent
}

t.test('the requests of one turn are settled in one script call, in order, each with its own answer', async (t) => {
  const { redis, prefix, store } = await setup(t)
  await redis.set(`${prefix}m`, 'v')
  const sent = await commandsSent(redis, store)
  const [first, other, second] = await Promise.all([
    store.hit('k', WINDOWS, { at: T0 }),
    store.hit('other', WINDOWS, { at: T0 + 1 }, [`${prefix}m`]),
    store.hit('k', WINDOWS, { at: T0 + 2 })
  ])
  t.same(sent, ['evalsha'], 'one call')
  t.same(first.counts[0], { count: 0, oldest: null })
  t.same(second.counts[0], { count: 1, oldest: T0 }, 'the second request of a key sees the first one counted')
  t.same([first.markers, other.markers, second.markers], [[], ['v'], []])
})

t.test('a request refused within a batch is not counted for the next one of its key', async (t) => {
  const { store } = await setup(t)
  const answers = await Promise.all(Array.from({ length: 5 }, () => store.hit('k', WINDOWS, { at: T0 })))
  t.same(answers.map((a) => a.counts[0].count), [0, 1, 2, 3, 3], 'three admitted, then two refused at 3')
})

t.test('a turn of more than 32 requests goes in calls of 32 at most', async (t) => {
  const { redis, store } = await setup(t)
  const sent = await commandsSent(redis, store)
  await Promise.all(Array.from({ length: 40 }, (_, i) => store.hit(`k${i}`, WINDOWS, { at: T0 })))
  t.same(sent, ['evalsha', 'evalsha'])
})

t.test('a failed call fails every request of its batch', async (t) => {
  const redis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null })
  t.teardown(() => redis.disconnect())
  const store = new RedisStore(redis, 'eh-test:')
  const answers = await Promise.allSettled([store.hit('a', WINDOWS, { at: T0 }), store.hit('b', WINDOWS, { at: T0 })])
  t.same(answers.map((a) => a.status), ['rejected', 'rejected'])
})
