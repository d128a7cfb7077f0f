/**
 * A delivery worker in its own process, for the crash test (started with `nodeEntry` of test/helper.ts).
 * Reads WORKER_STORE_IDS, WORKER_LEASE_MS, WORKER_TIMEOUT_MS, WORKER_CONCURRENCY and WORKER_REDIS_PREFIX;
 * prints "ready" once it polls.
 */
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helper.js'

if (!process.env.WORKER_STORE_IDS) {
  // Picked up by `tap test/webhooks/`: not a test file of its own.
  process.stdout.write('1..0 # SKIP started by workers.test.ts\n')
  process.exit(0)
}

const app = await buildApp(testConfig(), { logger: false, redisPrefix: process.env.WORKER_REDIS_PREFIX })
await app.ready()
const worker = app.services.delivery.createWorker({
  storeIds: process.env.WORKER_STORE_IDS!.split(','),
  leaseMs: Number(process.env.WORKER_LEASE_MS ?? 120_000),
  timeoutMs: Number(process.env.WORKER_TIMEOUT_MS ?? 10_000),
  perReceiverConcurrency: Number(process.env.WORKER_CONCURRENCY ?? 10),
  pollMs: 50
})
worker.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  worker.stop().then(() => app.close()).then(() => process.exit(0), () => process.exit(1))
})
