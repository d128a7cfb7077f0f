/**
 * `npm run bench:webhooks`: events to 10 local receivers through the real pipeline — fan-out into the outbox in the
 * writer's transaction, then a worker in its own process as `npm run worker` runs it (claims, per-receiver limits
 * through Redis, undici, signatures, the attempt log) — against a bare loop of signed undici POSTs to the same
 * receivers, also in its own process (bench/signed-loop.ts). MySQL + Redis.
 *   A. backlog drain: BENCH_EVENTS events already in the outbox when the worker starts -> deliveries/s;
 *      bare loop: as many signed POSTs, 10 in flight per receiver -> requests/s.
 *   B. steady rate: BENCH_PACED_EVENTS events written at 200/s by this process (the API's part) while the worker
 *      runs -> event-to-delivery p50/p99; bare loop: a signed POST sent the moment each item is made, same rate.
 * The receivers run here and time each arrival: against the event's createdAt, or the bare loop's x-sent-at.
 * Records bench/RESULTS.md. Benchmarks are not tests: nothing here asserts on time.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { spawn, spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { newSubscription } from '../src/modules/delivery/subscriptions.js'
import { record } from './lib.js'
import { benchService, nodeFlagsOf, ROOT, startProcess } from './wrk.js'

const RECEIVERS = 10
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 2_000)
const PACED_RATE = 200
const PER_RECEIVER = 10

/** What the receivers saw since the last reset: arrivals, the first and last arrival, and each one's latency. */
const seen = { count: 0, first: 0, last: 0, latencies: [] as number[] }
function reset () {
  Object.assign(seen, { count: 0, first: 0, last: 0, latencies: [] })
}

async function startReceiver (): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const now = Date.now()
      const sentAt = req.headers['x-sent-at']
      const from = sentAt ? Number(sentAt) : Date.parse((JSON.parse(Buffer.concat(chunks).toString()) as { createdAt: string }).createdAt)
      seen.latencies.push(now - from)
      seen.first ||= now
      seen.last = now
      seen.count++
      res.writeHead(204).end()
    })
  })
  server.unref()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
}

async function arrivals (n: number) {
  while (seen.count < n) await new Promise((resolve) => setTimeout(resolve, 5))
}

function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

/** bench/signed-loop.ts in its own process; resolves to what it printed. */
function signedLoop (urls: string[], mode: 'backlog' | 'paced', count: number): Promise<{ perSecond?: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/signed-loop.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      URLS: JSON.stringify(urls),
      MODE: mode,
      COUNT: String(count),
      RATE: String(PACED_RATE),
      PER_RECEIVER: String(PER_RECEIVER)
    },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  return new Promise((resolve, reject) =>
    child.once(
      'exit',
      (code) => code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`signed loop exited ${code}`))
    )
  )
}

const { env, config, app } = await benchService('eh_bench_webhooks', { WEBHOOK_ALLOW_PRIVATE: 'true' })
const urls = await Promise.all(Array.from({ length: RECEIVERS }, startReceiver))
const stores: Array<{ orgId: string, storeId: string }> = []
for (const [i, url] of urls.entries()) {
  const out = await app.services.bootstrap.bootstrap({
    org: `Bench webhooks ${i}`,
    store: 'Main',
    owner: `bench-webhooks-${Date.now()}-${i}@example.test`,
    plan: 'growth',
    origins: []
  })
  const { row } = await newSubscription(
    { kind: 'webhook', orgId: out.organization.id, storeId: out.store.id, url, events: ['*'], createdBy: 'bench', now: Date.now() },
    config.secretKey,
    true
  )
  await app.services.delivery.subscriptions.insert(row)
  stores.push({ orgId: out.organization.id, storeId: out.store.id })
}
/** The API's part: an event appended and fanned out into the outbox in one transaction, as a write does. */
const append = (i: number) => {
  const store = stores[i % stores.length]
  return app.db.transaction((trx) =>
    app.events.append(trx, { orgId: store.orgId, storeEnvId: store.storeId, type: 'loyalty.referral_reward', data: { i } })
  )
}

// A. The backlog, written before the worker starts.
for (let i = 0; i < EVENTS; i += 50) await Promise.all(Array.from({ length: Math.min(50, EVENTS - i) }, (_, k) => append(i + k)))
reset()
spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
const worker = await startProcess(
  [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...nodeFlagsOf('worker'),
    'dist/src/worker.js'
  ],
  { ...env, LOG_LEVEL: 'info' },
  /background jobs started/
)
await arrivals(EVENTS)
const pipelineRate = (EVENTS - 1) / ((seen.last - seen.first) / 1000)

// B. Steady rate while the worker runs: it hears of each commit over Redis.
reset()
const started = Date.now()
for (let i = 0; i < PACED_EVENTS; i++) {
  const wait = started + i * (1000 / PACED_RATE) - Date.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  await append(i)
}
await arrivals(PACED_EVENTS)
const pipelineLatency = seen.latencies
worker.kill('SIGTERM')
await app.close()

reset()
const bareRate = (await signedLoop(urls, 'backlog', EVENTS)).perSecond!
reset()
await signedLoop(urls, 'paced', PACED_EVENTS)
await arrivals(PACED_EVENTS)
const bareLatency = seen.latencies

const ratio = pipelineRate / bareRate
console.log(`A. backlog: pipeline ${pipelineRate.toFixed(0)} deliveries/s, bare ${bareRate} POSTs/s, ratio ${ratio.toFixed(2)}`)
console.log(`B. at ${PACED_RATE}/s: p50 ${percentile(pipelineLatency, 0.5)} / ${percentile(bareLatency, 0.5)} ms, p99 ${percentile(pipelineLatency, 0.99)} / ${percentile(bareLatency, 0.99)} ms (pipeline / bare)`)
record('webhooks', 'bench:webhooks — webhook delivery, worker in its own process (MySQL + Redis)', [
  `${EVENTS} events to ${RECEIVERS} local receivers (one webhook per store, ${RECEIVERS} stores), then ${PACED_EVENTS} written at ${PACED_RATE}/s. The worker runs as \`npm run worker\` runs it (compiled, its own process); the events are written by this process, as an API instance would; the bare loop of signed undici POSTs (${PER_RECEIVER} in flight per receiver) runs in a process of its own; the receivers run here.`,
  '',
  '| target | pipeline | bare signed loop | ratio / goal |',
  '|---|---:|---:|---:|',
  `| A. backlog drain | ${pipelineRate.toFixed(0)} deliveries/s | ${bareRate} POSTs/s | ${ratio.toFixed(2)} (goal ≥ 0.70) |`,
  `| B. event → delivery at ${PACED_RATE}/s, p50 | ${percentile(pipelineLatency, 0.5)} ms | ${percentile(bareLatency, 0.5)} ms | |`,
  `| B. event → delivery at ${PACED_RATE}/s, p99 | ${percentile(pipelineLatency, 0.99)} ms | ${percentile(bareLatency, 0.99)} ms | goal < 100 ms |`,
  '',
  `Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
  '',
  'Per delivery the pipeline pays a claim share (`SELECT … FOR UPDATE SKIP LOCKED` + `UPDATE` per 100), a batched completion (one transaction per up to 100 successes) and the per-receiver concurrency limit through Redis (bottleneck, clustered: one job per group of up to 10 requests to a receiver, weighing one slot each); the bare loop does none of that. In B the worker hears of each commit over Redis pub/sub (delivery/wakeups.ts) instead of waiting for its 500 ms poll.'
].join('\n'))
process.exit(0)
