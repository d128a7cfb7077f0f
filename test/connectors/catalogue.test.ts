import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { EVENT_TYPES as EMITTED, eventResource } from '../../src/modules/events/event-types.js'

const EVENT_TYPES = [
  'review.created', 'review.published', 'review.updated', 'review.deleted', 'product.upserted', 'order.upserted',
  'order.review_request.updated', 'loyalty.birthday_reward', 'loyalty.referral_reward',
  'customer.created', 'customer.updated', 'customer.deleted', 'product.deleted', 'order.deleted', 'review_incentive.issued',
  'affiliate.referral_recorded', 'gallery.photo.created', 'gallery.lead.created', 'email_suppression.created'
]

t.test('the catalogue lists the triggers with the resource whose read scope the event log asks for', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const triggers = res.json() as Array<{ key: string, label: string, resource: string }>
  t.same(triggers.map((trigger) => trigger.key), EVENT_TYPES)
  for (const trigger of triggers) {
    // One rule for the log, outbound webhooks and connectors: a trigger never needs a different scope than its event.
    t.equal(trigger.resource, eventResource(trigger.key), trigger.key)
    t.ok((EMITTED as readonly string[]).includes(trigger.key), `${trigger.key} is an event type the service emits`)
    t.ok(trigger.label.length > 3, `${trigger.key} has a label`)
  }
  t.equal(new Set(triggers.map((trigger) => trigger.label)).size, triggers.length, 'labels tell triggers apart')
})

t.test('each sample has the shape of a polled item', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const triggers = (await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: tenant.key, store: tenant.storeId })).json()
  for (const { key, sample } of triggers) {
    t.match(sample, { id: /^evt_\d+$/, type: key, createdAt: /^\d{4}-\d\d-\d\dT.*Z$/ }, key)
    t.ok(Object.keys(sample).length > 3, `${key} sample carries data`)
  }
  const review = triggers.find((trigger: { key: string }) => trigger.key === 'review.created').sample
  t.match(review, { reviewId: /^rev_/, rating: Number, authorEmailLast4: String })
  t.notOk('authorEmail' in review)
  const reward = triggers.find((trigger: { key: string }) => trigger.key === 'review_incentive.issued').sample
  t.match(
    reward,
    { type: 'review_incentive.issued', rewardId: /^rii_/, incentiveType: 'coupon' },
    'the incentive\'s own type does not hide the event type'
  )
})

t.test('the catalogue answers a key whatever its scopes', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', ['orders:read'])
  const res = await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: key.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})
