import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import { deliverUntil, receiver, testWorker } from '../webhooks/support.js'
import { api, customer, eventsMade, ok, shapeDiff, WRITERS } from './trigger-events.js'
import { EVENT_TYPES } from '../../src/modules/connectors/catalogue.js'

/**
 * Each trigger's event is made the way an integrator's store makes it (the public API, the storefront, a platform's
 * webhook or the daily job; ./trigger-events.ts), then polled, and the item must have the structure of the
 * catalogue's sample. A writer that renames, adds or drops a field, or changes its kind, fails its test until the
 * sample follows.
 */

type Json = unknown

/** Polls the trigger and checks its items against the catalogue's sample for it. */
async function pollMatchesSample (t: Test, app: FastifyInstance, tenant: Tenant, event: string, count = 1) {
  const catalogue = (await api(app, tenant, 'GET', '/connectors/triggers')).json() as Array<{ key: string, sample: Json }>
  const trigger = catalogue.find((entry) => entry.key === event)
  t.ok(trigger, `${event} is in the catalogue`)
  const res = await api(app, tenant, 'GET', `/connectors/triggers/${event}`)
  t.equal(res.statusCode, 200)
  const items = res.json() as Array<Record<string, Json>>
  t.equal(items.length, count, `${count} ${event} event(s)`)
  for (const item of items) {
    t.match(item, { id: /^evt_/, type: event })
    t.same(shapeDiff(item, trigger!.sample), [], `the ${event} item has the sample's structure`)
  }
  return items
}

/** Items whose writer gave an address that only its last four characters may reach. */
const MASKED = new Set([
  'review.created',
  'review.published',
  'review.updated',
  'review.deleted',
  'review_incentive.issued',
  'gallery.photo.created'
])

for (const event of EVENT_TYPES) {
  t.test(`${event} is polled in the shape of its sample`, async (t) => {
    const app = await sharedApp()
    const tenant = await makeTenant(app)
    const expected = await WRITERS[event](app, tenant)
    for (const item of await pollMatchesSample(t, app, tenant, event, eventsMade(event))) {
      t.match(item, expected)
      if (MASKED.has(event)) t.notOk(JSON.stringify(item).includes('ann.lee@'), 'without the writer\'s address')
    }
  })
}

const WAVE_2 = {
  'customer.created': 'customers',
  'customer.updated': 'customers',
  'customer.deleted': 'customers',
  'product.deleted': 'products',
  'order.deleted': 'orders',
  'review_incentive.issued': 'review-incentives',
  'affiliate.referral_recorded': 'affiliates',
  'gallery.photo.created': 'galleries',
  'gallery.lead.created': 'galleries',
  'email_suppression.created': 'email-suppressions'
} as const
const READ_SCOPES = [...new Set(Object.values(WAVE_2))].map((resource) => `${resource}:read`)

t.test('without read scope on its resource a key can neither poll nor subscribe to a wave-2 trigger', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [event, resource] of Object.entries(WAVE_2)) {
    // Every other resource's read scope, and the hook scope: only the one missing scope can be why it is refused.
    const key = (await makeKey(app, tenant, 'editor', [
      ...READ_SCOPES.filter((scope) => scope !== `${resource}:read`),
      'connectors:write'
    ])).secret
    const polled = await call(app, { method: 'GET', url: `/v1/connectors/triggers/${event}`, key, store: tenant.storeId })
    t.equal(polled.statusCode, 403, `poll ${event}`)
    t.equal(polled.json().code, 'insufficient_scope')
    const hook = await call(app, {
      method: 'POST',
      url: '/v1/connectors/hooks',
      key,
      store: tenant.storeId,
      payload: { targetUrl: 'https://hooks.example/z', event }
    })
    t.equal(hook.statusCode, 403, `subscribe ${event}`)
    t.equal(hook.json().code, 'insufficient_scope')
  }
})

t.test('with read scope on its resource a key may poll and subscribe to a wave-2 trigger', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const [event, resource] of Object.entries(WAVE_2)) {
    const key = (await makeKey(app, tenant, 'editor', [`${resource}:read`, 'connectors:write'])).secret
    t.equal(
      (await call(app, { method: 'GET', url: `/v1/connectors/triggers/${event}`, key, store: tenant.storeId })).statusCode,
      200,
      `poll ${event}`
    )
    const hook = await call(app, {
      method: 'POST',
      url: '/v1/connectors/hooks',
      key,
      store: tenant.storeId,
      payload: { targetUrl: 'https://hooks.example/z', event }
    })
    t.equal(hook.statusCode, 201, `subscribe ${event}`)
  }
})

t.test('a customer.created hook delivers the polled item', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await ok(api(app, tenant, 'POST', '/connectors/hooks', { targetUrl: rx.url, event: 'customer.created' }))
  await ok(api(app, tenant, 'PUT', '/customers', { customers: [customer] }))
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
  const [polled] = (await api(app, tenant, 'GET', '/connectors/triggers/customer.created')).json() as Json[]
  t.same(JSON.parse(rx.received[0].body), polled)
})
