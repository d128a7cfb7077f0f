/**
 * `npm run bench:webhooks`: 10,000 events to 10 local receivers through the real pipeline (outbox, claims, bottleneck,
 * undici, signatures, attempt log), against a bare loop of signed undici POSTs to the same receivers in the same run.
 *   A. backlog drain: 10,000 events already in the outbox, one worker drains it -> deliveries/s;
 *      bare loop: 10,000 signed POSTs, 10 in flight per receiver -> requests/s.
 *   B. steady rate: 2,000 events written at 200/s while the worker runs -> event-to-delivery p50/p99;
 *      bare loop: a signed POST sent the moment each item is made, same rate -> p50/p99.
 * DATABASE_URL (MySQL, a database the bench may drop and recreate) and REDIS_URL are optional: without them it runs
 * on SQLite in a temporary directory, without Redis.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knex from 'knex'
import { Agent, request } from 'undici'
import { buildApp } from '../src/app.js'
import { validateConfig, type Config } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { newSubscription } from '../src/delivery/subscriptions.js'
import { signatureHeaders } from '../src/delivery/sign.js'

const RECEIVERS = 10
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 2_000)
const PACED_RATE = 200
const PER_RECEIVER = 10

const arrivals = new Map<string, number>()
let arrived = 0

async function startReceiver (): Promise<{ server: Server, url: string }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      arrivals.set(String(req.headers['x-service-event-id']), Date.now())
      arrived++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }
}

async function freshDatabase (): Promise<Config> {
  const base = {
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    logLevel: 'silent',
    trustProxy: false,
    secretKey: 'bench-secret-key-bench-secret-key-0123456789',
    webhookAllowPrivate: true,
    mailFrom: 'bench <b@localhost>',
    reviewRequestDelayHours: 72,
    workers: false,
    redisUrl: process.env.REDIS_URL || undefined
  }
  const url = process.env.DATABASE_URL
  if (url) {
    const parsed = new URL(url)
    const name = parsed.pathname.slice(1)
    const server = knex({ client: 'mysql2', connection: { host: parsed.hostname, port: Number(parsed.port || 3306), user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) } })
    await server.raw(`DROP DATABASE IF EXISTS \`${name}\``)
    await server.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await server.destroy()
  }
  const config = validateConfig({ ...base, databaseUrl: url || undefined, dataDir: mkdtempSync(join(tmpdir(), 'eh-bench-')) })
  const db = createKnex(config)
  await migrateLatest(db)
  await db.destroy()
  return config
}

function percentile (sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

async function waitForArrivals (n: number) {
  for (;;) {
    if (arrived >= n) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** The bare loop: sign and POST, `PER_RECEIVER` in flight per receiver. */
async function bareLoop (urls: string[], secret: string, count: number, prefix: string) {
  const agent = new Agent({ connections: PER_RECEIVER })
  let next = 0
  const lane = async (receiver: number) => {
    for (;;) {
      const i = next++
      if (i >= count) return
      const id = `${prefix}${i}`
      const body = JSON.stringify({ id, type: 'loyalty.referral_reward', createdAt: new Date().toISOString(), storeEnvId: 'env_bench', data: { i } })
      const res = await request(urls[(receiver + i) % urls.length], { method: 'POST', body, dispatcher: agent, headers: { 'content-type': 'application/json', 'x-service-event-id': id, ...signatureHeaders(secret, body, Date.now(), 'http://127.0.0.1:3000') } })
      await res.body.dump()
    }
  }
  await Promise.all(Array.from({ length: urls.length * PER_RECEIVER }, (_, k) => lane(k)))
  await agent.close()
}

async function main () {
  const config = await freshDatabase()
  const receivers = await Promise.all(Array.from({ length: RECEIVERS }, startReceiver))
  const app = await buildApp(config, { logger: false, redisPrefix: 'eh:bench:' })
  await app.ready()
  const { bootstrap } = app.services
  const stores: Array<{ orgId: string, storeId: string }> = []
  for (const [i, rx] of receivers.entries()) {
    const out = await bootstrap.bootstrap({ org: `Bench ${i}`, store: 'Main', owner: `bench${i}@example.test`, plan: 'growth', origins: [] })
    const { row } = await newSubscription({ kind: 'webhook', orgId: out.organization.id, storeId: out.store.id, url: rx.url, events: ['*'], createdBy: 'bench', now: Date.now() }, config.secretKey, true)
    await app.services.delivery.subscriptions.insert(row)
    stores.push({ orgId: out.organization.id, storeId: out.store.id })
  }
  const append = (i: number) => {
    const store = stores[i % stores.length]
    return app.db.transaction((trx) => app.events.append(trx, { orgId: store.orgId, storeEnvId: store.storeId, type: 'loyalty.referral_reward', data: { i } }))
  }

  // A. Backlog drain.
  for (let i = 0; i < EVENTS; i += 50) await Promise.all(Array.from({ length: Math.min(50, EVENTS - i) }, (_, k) => append(i + k)))
  const urls = receivers.map((r) => r.url)
  let t0 = Date.now()
  await bareLoop(urls, 'whsec_benchbenchbenchbenchbenchbench12', EVENTS, 'bare_')
  const bareRate = EVENTS / ((Date.now() - t0) / 1000)

  arrived = 0
  const workerApp = await buildApp({ ...config, workers: true }, { logger: false, redisPrefix: 'eh:bench:' })
  t0 = Date.now()
  await workerApp.ready()
  await waitForArrivals(EVENTS)
  const pipelineRate = EVENTS / ((Date.now() - t0) / 1000)

  // B. Steady rate: the pipeline (writes through workerApp, whose worker wakes on commit) then the bare loop.
  arrived = 0
  const created = new Map<string, number>()
  const interval = 1000 / PACED_RATE
  let start = Date.now()
  for (let i = 0; i < PACED_EVENTS; i++) {
    const store = stores[i % stores.length]
    const wait = start + i * interval - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const event = await workerApp.db.transaction((trx) => workerApp.events.append(trx, { orgId: store.orgId, storeEnvId: store.storeId, type: 'loyalty.referral_reward', data: { i } }))
    created.set(event.id, Date.parse(event.createdAt))
  }
  await waitForArrivals(PACED_EVENTS)
  const pipelineLatency = [...created].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b)

  const bareCreated = new Map<string, number>()
  const agent = new Agent({ connections: PER_RECEIVER })
  const sends: Array<Promise<void>> = []
  start = Date.now()
  for (let i = 0; i < PACED_EVENTS; i++) {
    const wait = start + i * interval - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const id = `paced_${i}`
    bareCreated.set(id, Date.now())
    const body = JSON.stringify({ id, type: 'loyalty.referral_reward', createdAt: new Date().toISOString(), storeEnvId: 'env_bench', data: { i } })
    sends.push(request(urls[i % urls.length], { method: 'POST', body, dispatcher: agent, headers: { 'content-type': 'application/json', 'x-service-event-id': id, ...signatureHeaders('whsec_bench', body, Date.now(), 'http://127.0.0.1:3000') } }).then((res) => res.body.dump()))
  }
  await Promise.all(sends)
  await agent.close()
  const bareLatency = [...bareCreated].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b)

  await workerApp.close()
  await app.close()
  for (const r of receivers) r.server.close()

  const storage = config.databaseUrl ? `MySQL/MariaDB${config.redisUrl ? ' + Redis (clustered limiter)' : ''}` : 'SQLite, no Redis'
  const lines = [
    `storage: ${storage}; ${EVENTS} events to ${RECEIVERS} receivers; ${PER_RECEIVER} in flight per receiver`,
    `A. throughput   pipeline ${pipelineRate.toFixed(0)} deliveries/s   bare loop ${bareRate.toFixed(0)} POSTs/s   ratio ${(pipelineRate / bareRate).toFixed(3)}`,
    `B. latency at ${PACED_RATE}/s (${PACED_EVENTS} events), event to delivery:`,
    `   p50 pipeline ${percentile(pipelineLatency, 0.5)} ms   bare ${percentile(bareLatency, 0.5)} ms`,
    `   p99 pipeline ${percentile(pipelineLatency, 0.99)} ms   bare ${percentile(bareLatency, 0.99)} ms`
  ]
  console.log(lines.join('\n'))
}

main().then(() => process.exit(0), (err) => {
  console.error(err)
  process.exit(1)
})
