import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { base62 } from '../../src/lib/ids.js'
import { createServer } from 'node:net'
import { build, call, manualClock, nodeEntry, onMysql, testConfig } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, receiver, testWorker, twoInstancesWithWebhook } from './support.js'

function startWorkerProcess (t: Test, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, nodeEntry('test/webhooks/worker-process.ts'), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve(child) })
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)))
  })
}

t.test('two worker instances share one outbox and send each event once', async (t) => {
  const { app, second, tenant, rx } = await twoInstancesWithWebhook(t)
  const count = 120
  const events = []
  for (let i = 0; i < count; i++) events.push(await appendEvent(app, tenant, 'loyalty.referral_reward', { i }))
  // A receiver slowed past the 2 s default by a loaded machine would count as a timeout, received yet retried: the
  // claims are under test here, not the timeout.
  const a = testWorker(t, app, [tenant.storeId], { batchSize: 10, maxInFlight: 10, timeoutMs: 30_000 })
  const b = testWorker(t, second, [tenant.storeId], { batchSize: 10, maxInFlight: 10, timeoutMs: 30_000 })
  a.start()
  b.start()
  await rx.waitFor(count)
  await a.stop()
  await b.stop()
  const ids = rx.bodies().map((body) => body.id)
  t.equal(ids.length, count, 'no event sent twice')
  t.same([...ids].sort(), events.map((e) => e.id).sort(), 'every event sent')
  t.ok(a.stats.claimed > 0 && b.stats.claimed > 0, `both instances took work (${a.stats.claimed} and ${b.stats.claimed})`)
  t.equal(a.stats.claimed + b.stats.claimed, count, 'no delivery claimed by both')
  const pending = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId }).whereNot({ status: 'succeeded' })
  t.same(pending.map((d) => d.status), [], 'every delivery recorded as succeeded')
})

t.test('a worker process killed mid-delivery loses nothing: a new process delivers every event', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  let firstArrived = () => {}
  const arrived = new Promise<void>((resolve) => { firstArrived = resolve })
  // The first request is never answered: the worker is killed while it waits.
  const rx = await receiver(t, (_req, n) => {
    if (n === 1) {
      firstArrived()
      return new Promise<number>(() => {})
    }
    return 200
  })
  await createWebhook(app, tenant, rx.url)
  const events = []
  for (let i = 0; i < 15; i++) events.push(await appendEvent(app, tenant, 'loyalty.birthday_reward', { i }))
  const env = {
    WORKER_STORE_IDS: tenant.storeId,
    WORKER_LEASE_MS: '3000',
    WORKER_TIMEOUT_MS: '1000',
    WORKER_CONCURRENCY: '1',
    WORKER_REDIS_PREFIX: `eh:test:${base62(10)}:`
  }

  const first = await startWorkerProcess(t, env)
  await arrived
  first.kill('SIGKILL')
  await once(first, 'exit')
  const claimed = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId }).whereNotNull('claim_token')
  t.ok(claimed.length > 0, 'the killed worker held claims')

  const second = await startWorkerProcess(t, env)
  const want = new Set(events.map((e) => e.id))
  while ([...want].some((id) => !rx.bodies().some((b) => b.id === id))) await new Promise((resolve) => setTimeout(resolve, 100))
  second.kill('SIGTERM')
  await once(second, 'exit')
  t.pass('every event reached the receiver')
  const rows = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId })
  t.equal(rows.filter((r) => r.status === 'succeeded').length, events.length, 'every delivery recorded as succeeded')
})

/** An API instance as deployed apart from the workers: src/server.ts with WORKERS=false, on the test database. */
async function startApiProcess (t: Test): Promise<string> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  const config = testConfig()
  const child = spawn(process.execPath, nodeEntry('src/server.ts'), {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      SECRET_KEY: config.secretKey,
      WORKERS: 'false',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE: 'true'
    },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API process exited early (${child.exitCode})`)
    if (await fetch(`${url}/health`).then(() => true, () => false)) return url
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

t.test('two API processes and two worker processes on one database deliver every event exactly once', {
  skip: onMysql ? false : 'several processes share one MySQL + Redis'
}, async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app, { plan: 'pro' })
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url, ['product.upserted'])
  const env = { WORKER_STORE_IDS: tenant.storeId, WORKER_TIMEOUT_MS: '2000', WORKER_REDIS_PREFIX: `eh:test:${base62(10)}:` }
  const [apiA, apiB] = await Promise.all([startApiProcess(t), startApiProcess(t), startWorkerProcess(t, env), startWorkerProcess(t, env)])
  // Disjoint batches of one store, written side by side through both API processes.
  const results = await Promise.all([0, 1, 2, 3].map((w) =>
    fetch(`${w % 2 ? apiB : apiA}/v1/products`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId, 'content-type': 'application/json' },
      body: JSON.stringify({ products: Array.from({ length: 30 }, (_, i) => ({ platformProductId: `s-${w}-${i}`, title: `w${w}` })) })
    })
  ))
  t.same(results.map((r) => r.status), [200, 200, 200, 200])
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'product.upserted' }).pluck('seq')
  t.equal(events.length, 120)
  await rx.waitFor(120)
  // Anything sent twice would arrive within the workers' next polls: wait until the outbox is finished.
  while (await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId }).whereNot({ status: 'succeeded' }).first()) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const ids = rx.bodies().map((body) => body.id)
  t.equal(ids.length, 120, 'no event sent twice')
  t.same([...ids].sort(), events.map((id: number) => `evt_${id}`).sort(), 'every event sent')
  const list = await call(app, { method: 'GET', url: '/v1/products?limit=1', key: tenant.key, store: tenant.storeId })
  t.equal(list.json().meta.total, 120)
})

t.test('a worker hears at once of deliveries another instance commits, not at its next poll', {
  skip: onMysql ? false : 'instances tell each other through Redis',
  timeout: 60_000
}, async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const writer = await build(t, { redisPrefix })
  const other = await build(t, { redisPrefix })
  const tenant = await makeTenant(writer)
  const rx = await receiver(t)
  await createWebhook(writer, tenant, rx.url)
  // Polling every ten minutes: only the wake-up can bring the delivery within the test's minute.
  const worker = testWorker(t, other, [tenant.storeId], { pollMs: 600_000 })
  worker.start()
  const channel = `${redisPrefix}deliveries:committed`
  while (Number((await writer.redis!.pubsub('NUMSUB', channel))[1]) < 1) await new Promise((resolve) => setTimeout(resolve, 20))
  // Its first look at the outbox (empty) is done long before this; from now on it sleeps.
  await new Promise((resolve) => setTimeout(resolve, 300))
  const event = await appendEvent(writer, tenant, 'loyalty.referral_reward', { i: 1 })
  await rx.waitFor(1)
  t.equal(rx.bodies()[0].id, event.id)
})

t.test('a worker for one store claims its due deliveries while another store\'s worker holds its claim open', {
  skip: onMysql ? false : 'SQLite has one writer: claims never overlap'
}, async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const [busy, other] = [await makeTenant(app), await makeTenant(app)]
  const rx = await receiver(t)
  await createWebhook(app, busy, rx.url)
  await createWebhook(app, other, rx.url)
  for (let i = 0; i < 30; i++) await appendEvent(app, busy)
  clock.advance(60_000)
  await appendEvent(app, busy)
  clock.advance(-60_000)
  await appendEvent(app, other)
  // The busy store's worker, mid-claim: the outbox's own locking read for its store, its transaction still open.
  const held = await app.db.transaction({ isolationLevel: 'read committed' })
  t.teardown(() => held.rollback())
  const holding = await held('webhook_deliveries').select('id').where({ status: 'pending', store_env_id: busy.storeId })
    .where('next_attempt_at', '<=', clock()).orderBy('next_attempt_at').orderBy('id').limit(100).forUpdate().skipLocked()
  t.equal(holding.length, 30)
  const claimed = await app.services.delivery.outbox.claim('test-claim', clock(), 60_000, 100, [other.storeId])
  t.equal(claimed.length, 1, 'the other store\'s due delivery is not held by that claim')
})

t.test('a worker round sends a due delivery that another transaction held when it first looked', {
  skip: onMysql ? false : 'SQLite has one writer: claims never overlap'
}, async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  const held = await app.db.transaction({ isolationLevel: 'read committed' })
  await held('webhook_deliveries').where({ store_env_id: tenant.storeId }).forUpdate()
  setTimeout(() => {
    held.commit().catch(() => {})
  }, 200)
  t.equal(await testWorker(t, app, [tenant.storeId]).runOnce(), 1)
  t.equal(rx.received.length, 1)
})
