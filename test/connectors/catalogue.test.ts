import t from 'tap'
import { build, call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

const EVENT_TYPES = [
  'review.created', 'review.published', 'review.updated', 'review.deleted', 'product.upserted', 'order.upserted',
  'order.review_request.updated', 'loyalty.birthday_reward', 'loyalty.referral_reward'
]

t.test('the catalogue lists every event type of decisions.md with its resource', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const triggers = res.json() as Array<{ key: string, label: string, resource: string }>
  t.same(triggers.map((trigger) => trigger.key), EVENT_TYPES)
  for (const trigger of triggers) {
    t.equal(trigger.resource, { review: 'reviews', product: 'products', order: 'orders', loyalty: 'loyalty' }[trigger.key.split('.')[0]], trigger.key)
    t.ok(trigger.label.length > 3, `${trigger.key} has a label`)
  }
})

t.test('each sample has the shape of a polled item', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const triggers = (await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: tenant.key, store: tenant.storeId })).json()
  for (const { key, sample } of triggers) {
    t.match(sample, { id: /^evt_\d+$/, type: key, createdAt: /^\d{4}-\d\d-\d\dT.*Z$/ }, key)
    t.ok(Object.keys(sample).length > 3, `${key} sample carries data`)
  }
  const review = triggers.find((trigger: { key: string }) => trigger.key === 'review.created').sample
  t.match(review, { reviewId: /^rev_/, rating: Number, authorEmailLast4: String })
  t.notOk('authorEmail' in review)
})

t.test('the catalogue answers a key whatever its scopes', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', ['orders:read'])
  const res = await call(app, { method: 'GET', url: '/v1/connectors/triggers', key: key.secret, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})
