import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { IDataObject } from 'n8n-workflow'
import { makeTenant } from '../../../test/factories.js'
import { sharedApp } from '../../../test/helper.js'
import { fakeContext, type Connection } from './context.js'
import { EvidenceHub, workflow } from './package.js'

const listening = new WeakMap<FastifyInstance, Promise<string>>()

/** The file's app on real HTTP, and a fresh store with its admin key. */
async function connect (): Promise<Connection & { app: FastifyInstance }> {
  const app = await sharedApp()
  if (!listening.has(app)) listening.set(app, app.listen({ port: 0, host: '127.0.0.1' }))
  const base = await listening.get(app)!
  const tenant = await makeTenant(app)
  return { app, base, key: tenant.key, storeId: tenant.storeId }
}

async function run (
  connection: Connection,
  parameters: Record<string, unknown>,
  items?: IDataObject[],
  requests?: Array<{ method: string, url: string, status: number }>
) {
  const [out] = await new EvidenceHub().execute.call(fakeContext({ connection, parameters, items, requests }))
  return out.map((item) => item.json as Record<string, any>)
}

const product = (n: number) => ({ platformProductId: `p-${String(n).padStart(3, '0')}`, title: `Product ${n}` })

t.test('products upsert in batches of 250 from the input items, and Return All reads them back page after page', async (t) => {
  const connection = await connect()
  const items = Array.from({ length: 260 }, (_, n) => product(n))
  const requests: Array<{ method: string, url: string, status: number }> = []
  const batches = await run(connection, { resource: 'product', operation: 'upsert', products: (i: number) => items[i] }, items, requests)
  t.same(batches.map((b) => [b.received, b.upserted, b.failed]), [[250, 250, 0], [10, 10, 0]])
  const all = await run(connection, { resource: 'product', operation: 'getAll', returnAll: true, filters: {} }, undefined, requests)
  t.same(all.map((p) => p.platformProductId).sort(), items.map((p) => p.platformProductId))
  t.same(requests.filter((r) => r.method === 'GET').map((r) => new URL(r.url, 'http://x').searchParams.get('page')), ['1', '2', '3'])
})

t.test('a bulk upsert reports a bad record by its place among all the records sent, and stores the others', async (t) => {
  const connection = await connect()
  const records = [[product(1), product(2)], [{ platformProductId: 'p-bad', colour: 'red' }]]
  const [batch] = await run(connection, { resource: 'product', operation: 'upsert', products: (i: number) => records[i] }, [{}, {}])
  t.match(batch, { received: 3, upserted: 2, failed: 1, errors: [{ index: 2, platformId: 'p-bad', code: 'invalid_item' }] })
})

t.test('Get Many with a limit stops at the limit', async (t) => {
  const connection = await connect()
  await run(connection, { resource: 'product', operation: 'upsert', products: () => Array.from({ length: 7 }, (_, n) => product(n)) })
  t.equal((await run(connection, { resource: 'product', operation: 'getAll', returnAll: false, limit: 5 })).length, 5)
})

t.test('a review reply to an unknown review fails with the API\'s message and code', async (t) => {
  const connection = await connect()
  const error = await run(connection, { resource: 'review', operation: 'reply', id: 'rev_missing', reply: 'Thanks!' }).catch((e: unknown) =>
    e
  ) as InstanceType<typeof workflow.NodeApiError>
  t.ok(error instanceof workflow.NodeApiError)
  t.equal(error.httpCode, '404')
  t.equal(error.description, 'code: not_found')
  t.match(error.message, /review/i)
})

t.test('a customer upsert, a points transaction and the account read back go through the catalogue\'s operations', async (t) => {
  const connection = await connect()
  const [upserted] = await run(connection, {
    resource: 'customer',
    operation: 'upsert',
    customers: () => ({ platformCustomerId: 'c-1', email: 'maya@example.com' })
  })
  t.match(upserted, { upserted: 1, failed: 0 })
  const [customer] = await run(connection, {
    resource: 'customer',
    operation: 'getAll',
    returnAll: true,
    filters: { email: 'maya@example.com' }
  })
  const [grant] = await run(connection, {
    resource: 'loyaltyAccount',
    operation: 'addTransaction',
    customerId: customer.id,
    points: 120,
    reason: 'Welcome',
    idempotencyKey: 'welcome-c-1'
  })
  t.match(grant, { entry: { points: 120 }, account: { balance: 120 } })
  const [account] = await run(connection, { resource: 'loyaltyAccount', operation: 'get', customerId: customer.id })
  t.equal(account.balance, 120)
})

t.test('calls past the key\'s per-second budget wait for Retry-After instead of failing', async (t) => {
  const connection = await connect()
  const requests: Array<{ method: string, url: string, status: number }> = []
  const reads = Array.from({ length: 14 }, () => ({}))
  const out = await run(connection, { resource: 'product', operation: 'getAll', returnAll: false, limit: 1 }, reads, requests)
  t.equal(out.length, 0, 'the store has no products: every call answered')
  t.ok(requests.some((r) => r.status === 429), 'the budget was met')
  t.equal(requests.filter((r) => r.status === 200).length, 14, 'and each call was answered after its wait')
})
