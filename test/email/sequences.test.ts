import t from 'tap'
import { buildServices } from '../../src/services.js'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'

const HOUR = 3_600_000
const clock = manualClock(Date.parse('2026-11-23T12:00:00.000Z'))
const app = await build(t, { clock })

const req = (tenant: Tenant, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
  call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

const threeSteps = {
  name: 'Three touches',
  active: true,
  steps: [{ delayHours: 24, templateKey: 'review_request' }, { delayHours: 48, templateKey: 'review_reminder' }, {
    delayHours: 72,
    templateKey: 'review_reminder',
    stopWhen: 'reviewed'
  }]
}

async function storeWithOrders (count: number) {
  const tenant = await makeTenant(app)
  await req(tenant, 'PUT', '/v1/products', { products: [{ platformProductId: 'mug', title: 'Mug' }] })
  t.equal((await req(tenant, 'POST', '/v1/email-sequences', threeSteps)).statusCode, 201)
  const fulfilledAt = new Date(clock()).toISOString()
  const orders = Array.from(
    { length: count },
    (_, i) => ({
      platformOrderId: `o-${i}`,
      customerEmail: `c${i}-${tenant.storeId.toLowerCase()}@example.test`,
      fulfilledAt,
      lineItems: [{ platformProductId: 'mug', quantity: 1 }]
    })
  )
  await req(tenant, 'PUT', '/v1/orders', { orders })
  return tenant
}

const requestOf = async (tenant: Tenant, id = 'o-0') => (await req(tenant, 'GET', `/v1/orders/${id}`)).json().reviewRequest

async function kindsSent (tenant: Tenant) {
  return app.db('email_messages').where({ store_env_id: tenant.storeId }).orderBy('id').select('to', 'kind')
}

t.test('a three-step sequence sends the request, then the reminders, and the order shows the step it is at', async (t) => {
  const tenant = await storeWithOrders(1)
  const first = await requestOf(tenant)
  t.match(first, { state: 'scheduled', step: 1, scheduledFor: new Date(clock() + 24 * HOUR).toISOString() })
  clock.advance(24 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const second = await requestOf(tenant)
  t.match(second, { state: 'scheduled', step: 2, scheduledFor: new Date(clock() + 48 * HOUR).toISOString() })
  t.match(second.reason, /^Step 1 of 3: sent to/)
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  t.match(await requestOf(tenant), { state: 'scheduled', step: 3 })
  clock.advance(72 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  t.match(await requestOf(tenant), { state: 'sent', step: 3, scheduledFor: null })
  t.same((await kindsSent(tenant)).map((m: { kind: string }) => m.kind), ['review_request', 'review_reminder', 'review_reminder'])
})

t.test('a step that stops when reviewed is not sent once the order has a review', async (t) => {
  const tenant = await storeWithOrders(1)
  clock.advance(24 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const review = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'mug', rating: 5, body: 'Great', authorName: 'C', authorEmail: 'c@example.test', orderId: 'o-0' }
  })
  t.equal(review.statusCode, 201)
  clock.advance(72 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const request = await requestOf(tenant)
  t.match(request, { state: 'sent', step: 3 })
  t.match(request.reason, 'Step 3 of 3: not sent: the order has a review')
  t.equal((await kindsSent(tenant)).length, 2)
})

t.test('re-sending an order while its sequence is under way does not restart it', async (t) => {
  const tenant = await storeWithOrders(1)
  clock.advance(24 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  await req(tenant, 'PUT', '/v1/orders', {
    orders: [{
      platformOrderId: 'o-0',
      customerEmail: `c0-${tenant.storeId.toLowerCase()}@example.test`,
      customerName: 'Changed',
      fulfilledAt: new Date(clock()).toISOString(),
      lineItems: [{ platformProductId: 'mug', quantity: 1 }]
    }]
  })
  t.match(await requestOf(tenant), { state: 'scheduled', step: 2 })
})

t.test('each step goes out exactly once with several scheduler instances at once and a restart between steps', async (t) => {
  const tenant = await storeWithOrders(30)
  const instance = () => buildServices({ db: app.db, clock, config: app.config, redis: null }).reviewRequests
  const [a, b, c] = [instance(), instance(), instance()]
  for (let step = 0; step < 3; step++) {
    clock.advance([24, 48, 72][step] * HOUR)
    // A restart before the last step: a new instance picks up where the others stopped.
    const workers = step < 2 ? [a, b, a, b] : [instance(), c, instance()]
    await Promise.all(workers.map((w) => w.runDue(tenant.storeId)))
  }
  const sent = await kindsSent(tenant)
  t.equal(sent.length, 90)
  const perCustomer = new Map<string, number>()
  for (const m of sent) perCustomer.set(m.to, (perCustomer.get(m.to) ?? 0) + 1)
  t.same([...new Set(perCustomer.values())], [3], 'three mails per customer, never more')
  t.equal(Number((await app.db('orders').where({ store_env_id: tenant.storeId, review_request_state: 'sent' }).count({ n: '*' }))[0].n), 30)
})

t.test('a store has at most one active sequence; another can be created inactive and deleted', async (t) => {
  const tenant = await makeTenant(app)
  const first = await req(tenant, 'POST', '/v1/email-sequences', threeSteps)
  t.equal(first.statusCode, 201)
  t.match(first.json(), { active: true, steps: [{ delayHours: 24, stopWhen: null }, {}, { stopWhen: 'reviewed' }] })
  const second = await req(tenant, 'POST', '/v1/email-sequences', threeSteps)
  t.equal(second.statusCode, 409)
  t.equal(second.json().code, 'conflict')
  const inactive = await req(tenant, 'POST', '/v1/email-sequences', { ...threeSteps, active: false })
  t.equal(inactive.statusCode, 201)
  t.equal((await req(tenant, 'PUT', `/v1/email-sequences/${inactive.json().id}`, threeSteps)).statusCode, 409)
  t.equal((await req(tenant, 'PUT', `/v1/email-sequences/${first.json().id}`, { ...threeSteps, active: false })).statusCode, 200)
  t.equal((await req(tenant, 'PUT', `/v1/email-sequences/${inactive.json().id}`, threeSteps)).statusCode, 200)
  t.equal((await req(tenant, 'DELETE', `/v1/email-sequences/${first.json().id}`)).statusCode, 204)
  t.equal((await req(tenant, 'GET', `/v1/email-sequences/${first.json().id}`)).statusCode, 404)
  t.equal((await req(tenant, 'GET', '/v1/email-sequences')).json().meta.total, 1)
  const types = await app.db('events').where({ store_env_id: tenant.storeId }).where('type', 'like', 'email_sequence.%').orderBy('id')
    .pluck('type')
  t.same(types, [
    'email_sequence.created',
    'email_sequence.created',
    'email_sequence.updated',
    'email_sequence.updated',
    'email_sequence.deleted'
  ])
})

t.test('a replace sent as the sequence is deleted either lands before the delete or answers 404: never updated after deleted', async (t) => {
  const tenant = await makeTenant(app)
  for (let round = 0; round < 5; round++) {
    clock.advance(61_000) // a fresh per-minute budget each round: the limits have tests of their own
    const id = (await req(tenant, 'POST', '/v1/email-sequences', { ...threeSteps, active: false })).json().id
    const [replaced, deleted] = await Promise.all([
      req(tenant, 'PUT', `/v1/email-sequences/${id}`, { ...threeSteps, active: false, name: 'Renamed' }),
      req(tenant, 'DELETE', `/v1/email-sequences/${id}`)
    ])
    t.equal(deleted.statusCode, 204)
    t.ok([200, 404].includes(replaced.statusCode), `replace answered ${replaced.statusCode}`)
    const types = (await req(tenant, 'GET', '/v1/events?limit=100')).json().events.filter((e: { data: { id: string } }) => e.data.id === id)
      .map((e: { type: string }) => e.type)
    t.same(
      types,
      replaced.statusCode === 200
        ? ['email_sequence.created', 'email_sequence.updated', 'email_sequence.deleted']
        : ['email_sequence.created', 'email_sequence.deleted']
    )
  }
})

t.test('sequence input at the edges is a 400, never a 500', async (t) => {
  const tenant = await makeTenant(app)
  const step = { delayHours: 1, templateKey: 'review_request' }
  const bad = [
    { name: 'x', steps: [] },
    { name: 'x', steps: Array(6).fill(step) },
    { name: 'x', steps: [{ ...step, delayHours: 8761 }] },
    { name: 'x', steps: [{ ...step, delayHours: -1 }] },
    { name: 'x', steps: [{ ...step, delayHours: 1.5 }] },
    { name: 'x', steps: [{ ...step, templateKey: 'loyalty_birthday' }] },
    { name: 'x', steps: [{ ...step, stopWhen: 'opened' }] },
    { name: 'n'.repeat(201), steps: [step] },
    { name: '', steps: [step] }
  ]
  for (const payload of bad) {
    t.equal((await req(tenant, 'POST', '/v1/email-sequences', payload)).statusCode, 400, JSON.stringify(payload).slice(0, 60))
  }
  t.equal((await req(tenant, 'GET', `/v1/email-sequences/${'x'.repeat(65)}`)).statusCode, 400)
})

t.test('one store cannot read, change or delete another store\'s sequence', async (t) => {
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const id = (await req(a, 'POST', '/v1/email-sequences', threeSteps)).json().id
  t.equal((await req(b, 'GET', `/v1/email-sequences/${id}`)).statusCode, 404)
  t.equal((await req(b, 'PUT', `/v1/email-sequences/${id}`, threeSteps)).statusCode, 404)
  t.equal((await req(b, 'DELETE', `/v1/email-sequences/${id}`)).statusCode, 404)
  t.equal((await req(b, 'GET', '/v1/email-sequences')).json().meta.total, 0)
  t.equal((await req(b, 'POST', '/v1/email-sequences', threeSteps)).statusCode, 201, 'each store has its own active sequence')
})
