import t from 'tap'
import { build, call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

/**
 * docs/contract/event-visibility.md#subscriptions: a subscription carries only event types its creator may read. An
 * email provider is one: the outbox sends it every event of its list whole, to a URL the store may choose.
 */

const app = await build(t)
const RECEIVER = 'http://127.0.0.1:9/collect'

async function providerDeliveries (storeId: string): Promise<number> {
  const [{ n }] = await app.db('webhook_deliveries as d').join('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .where({ 's.store_env_id': storeId, 's.kind': 'provider' }).count<Array<{ n: number }>>({ n: '*' })
  return Number(n)
}

t.test('a key scoped to email:write cannot subscribe a provider to customer events it may not read', async (t) => {
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor', ['email:write'])
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/email/providers/webhook',
    key: key.secret,
    store: tenant.storeId,
    payload: { baseUrl: RECEIVER, events: ['customer.created', 'order.upserted'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'insufficient_scope')
  t.notMatch(res.body, /whsec_/, 'no signing secret is handed out')
  await call(app, {
    method: 'PUT',
    url: '/v1/customers',
    key: tenant.key,
    store: tenant.storeId,
    payload: { customers: [{ platformCustomerId: 'c-1', email: 'private@example.test' }] }
  })
  t.equal(await providerDeliveries(tenant.storeId), 0, 'no customer event is queued for a receiver')
})

t.test('an editor cannot subscribe a provider to backup or subscription events, which its role may not read', async (t) => {
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/email/providers/webhook',
    key: key.secret,
    store: tenant.storeId,
    payload: { baseUrl: RECEIVER, events: ['backup.created', 'subscription.updated'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_forbidden')
})

t.test('a provider set up without an event list gets the loyalty rewards only if its creator may read loyalty', async (t) => {
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor', ['email:write'])
  const refused = await call(app, {
    method: 'PUT',
    url: '/v1/email/providers/webhook',
    key: key.secret,
    store: tenant.storeId,
    payload: { baseUrl: RECEIVER }
  })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'insufficient_scope')
  const both = await makeKey(app, tenant, 'editor', ['email:write', 'loyalty:read'])
  const made = await call(app, {
    method: 'PUT',
    url: '/v1/email/providers/webhook',
    key: both.secret,
    store: tenant.storeId,
    payload: { baseUrl: RECEIVER }
  })
  t.equal(made.statusCode, 200)
  t.same(made.json().events, ['loyalty.referral_reward', 'loyalty.birthday_reward'])
})

t.test('a key that may read customers subscribes a provider to customer events', async (t) => {
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor', ['email:write', 'customers:read'])
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/email/providers/webhook',
    key: key.secret,
    store: tenant.storeId,
    payload: { baseUrl: RECEIVER, events: ['customer.created'] }
  })
  t.equal(res.statusCode, 200)
  t.same(res.json().events, ['customer.created'])
})
