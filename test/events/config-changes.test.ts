import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  const logged = async (type: string) => (await app.db('events').where({ store_env_id: tenant.storeId, type }).orderBy('id'))
    .map((row: { data: string }) => JSON.parse(row.data) as Record<string, unknown>)
  return { app, api, logged }
}

t.test('creating and retiring an outbound webhook append outbound_webhook events without its signing secret', async (t) => {
  const { api, logged } = await setup()
  const created = await api('POST', '/outbound-webhooks', { url: 'https://hooks.example/receive', events: ['review.created'] })
  t.equal(created.statusCode, 201, created.body)
  const { id, secret } = created.json()
  t.equal((await api('DELETE', `/outbound-webhooks/${id}`)).statusCode, 204)
  t.match(await logged('outbound_webhook.created'), [{
    id,
    url: 'https://hooks.example/receive',
    events: ['review.created'],
    status: 'active'
  }])
  t.match(await logged('outbound_webhook.deleted'), [{ id, status: 'retired' }])
  t.notOk(
    JSON.stringify([await logged('outbound_webhook.created'), await logged('outbound_webhook.deleted')]).includes(secret),
    'no secret'
  )
})

t.test('enabling a disabled outbound webhook appends outbound_webhook.updated with its new status', async (t) => {
  const { app, api, logged } = await setup()
  const { id } = (await api('POST', '/outbound-webhooks', { url: 'https://hooks.example/receive', events: ['review.created'] })).json()
  await app.db('webhook_subscriptions').where({ id }).update({ status: 'disabled', status_reason: 'Disabled after 10 failed attempts' })
  t.equal((await api('POST', `/outbound-webhooks/${id}/enable`)).statusCode, 200)
  t.equal((await api('POST', `/outbound-webhooks/${id}/enable`)).statusCode, 200, 'enabling an active webhook changes nothing')
  t.match(await logged('outbound_webhook.updated'), [{ id, status: 'active' }])
  t.equal((await logged('outbound_webhook.updated')).length, 1)
})

t.test('a webhook subscribed to every type is sent later webhooks\' registrations, never its own', async (t) => {
  const { app, api } = await setup()
  const first = (await api('POST', '/outbound-webhooks', { url: 'https://hooks.example/first', events: ['*'] })).json()
  const second = (await api('POST', '/outbound-webhooks', { url: 'https://hooks.example/second', events: ['*'] })).json()
  const rows = await app.db('webhook_deliveries as d').join('events as e', 'e.id', 'd.event_id')
    .whereIn('d.subscription_id', [first.id, second.id]).select('d.subscription_id', 'e.data')
  const sent = rows.map((
    row: { subscription_id: string, data: string }
  ) => [row.subscription_id, (JSON.parse(row.data) as { id: string }).id])
  t.same(sent, [[first.id, second.id]])
})

t.test('PUT /affiliates/settings appends affiliate_settings.updated with the rates', async (t) => {
  const { api, logged } = await setup()
  t.equal((await api('PUT', '/affiliates/settings', { usdRates: { EUR: '1.08' } })).statusCode, 200)
  t.match(await logged('affiliate_settings.updated'), [{ usdRates: { EUR: '1.08' } }])
})

t.test('POST /evidence/snapshots appends evidence_snapshot.created naming the snapshot and product', async (t) => {
  const { api, logged } = await setup()
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  const snap = await api('POST', '/evidence/snapshots', { platformProductId: 'p1' })
  t.equal(snap.statusCode, 201, snap.body)
  t.match(await logged('evidence_snapshot.created'), [{ id: snap.json().id, platformProductId: 'p1' }])
})

t.test('the new event types are catalogued and need their resource\'s read scope', async (t) => {
  const { eventResource, isEventType } = await import('../../src/modules/events/event-types.js')
  const expected = {
    'outbound_webhook.created': 'outbound-webhooks',
    'outbound_webhook.updated': 'outbound-webhooks',
    'outbound_webhook.deleted': 'outbound-webhooks',
    'affiliate_settings.updated': 'affiliates',
    'evidence_snapshot.created': 'evidence'
  }
  for (const [type, resource] of Object.entries(expected)) {
    t.ok(isEventType(type), type)
    t.equal(eventResource(type), resource, type)
  }
})
