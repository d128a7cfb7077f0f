import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { base62 } from '../../src/lib/ids.js'
import { makeTenant, type Tenant } from '../factories.js'
import { build, call, manualClock } from '../helper.js'

/** Appends an event the way a domain write does: in its own transaction. */
export async function appendEvent (
  app: FastifyInstance,
  tenant: Pick<Tenant, 'orgId' | 'storeId'>,
  type = 'loyalty.birthday_reward',
  data: Record<string, unknown> = {}
) {
  return app.db.transaction((trx) => app.events.append(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, type, data }))
}

export interface Received { headers: IncomingHttpHeaders, body: string, url: string }

/**
 * A real HTTP receiver on 127.0.0.1. `respond` decides each answer (default 200); it may return a promise to
 * hold the request open (a slow receiver).
 */
export async function receiver (t: Test, respond: (req: Received, n: number) => number | Promise<number> = () => 200) {
  const received: Received[] = []
  const waiters: Array<{ n: number, resolve: () => void }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const item = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '/' }
      received.push(item)
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve()
      Promise.resolve(respond(item, received.length)).then((status) => {
        res.writeHead(status, { 'content-type': 'text/plain' })
        res.end('ok')
      }, () => res.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    bodies: () => received.map((r) => JSON.parse(r.body) as { id: string, type: string, [k: string]: unknown }),
    /** Resolves once `n` requests have arrived. */
    waitFor: (n: number) => new Promise<void>((resolve) => {
      if (received.length >= n) resolve()
      else waiters.push({ n, resolve })
    }),
    server
  }
}

export async function createWebhook (app: FastifyInstance, tenant: Tenant, url: string, events: string[] = ['*']) {
  const res = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url, events }
  })
  if (res.statusCode !== 201) throw new Error(`webhook not created: ${res.statusCode} ${res.body}`)
  return res.json() as { id: string, secret: string, status: string }
}

/** A worker with short timings for tests, on the test's own stores only (files run in parallel); stopped with the test. */
export function testWorker (
  t: Test,
  app: FastifyInstance,
  storeIds: string[],
  options: Parameters<FastifyInstance['services']['delivery']['createWorker']>[0] = {}
) {
  const worker = app.services.delivery.createWorker({ timeoutMs: 2_000, pollMs: 20, storeIds, ...options })
  t.teardown(() => worker.stop())
  return worker
}

/**
 * Claim rounds until `received` holds `count` deliveries (or 20 rounds): a claim skips rows another process's
 * worker holds locked for a moment (SKIP LOCKED, the same database for every test file), so one round may find none.
 */
export async function deliverUntil (worker: { runOnce: () => Promise<unknown> }, received: unknown[], count: number): Promise<void> {
  for (let round = 0; round < 20 && received.length < count; round++) {
    await worker.runOnce()
    if (received.length < count) await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Two instances of the service on one database and one Redis namespace, as behind a load balancer (they share the
 * per-receiver limits through bottleneck's clustering), a tenant, and a receiver its webhook posts to.
 */
export async function twoInstancesWithWebhook (t: Test, respond?: Parameters<typeof receiver>[1]) {
  const redisPrefix = `eh:test:${base62(10)}:`
  const app = await build(t, { redisPrefix })
  const second = await build(t, { redisPrefix })
  const tenant = await makeTenant(app)
  const rx = await receiver(t, respond)
  await createWebhook(app, tenant, rx.url)
  return { app, second, tenant, rx }
}

/**
 * A webhook whose receiver always answers 500, with one event for it, run through every retry: 30 hours a step, so
 * about three days of retries pass in twelve runs of the worker, after which the webhook is disabled.
 */
export async function failedForThreeDays (t: Test) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t, () => 500)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId])
  for (let i = 0; i < 12; i++) {
    await worker.runOnce()
    clock.advance(30 * 3_600_000)
  }
  return { app, tenant, rx, hook, worker }
}
