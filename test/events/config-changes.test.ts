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
  const expected = { 'affiliate_settings.updated': 'affiliates', 'evidence_snapshot.created': 'evidence' }
  for (const [type, resource] of Object.entries(expected)) {
    t.ok(isEventType(type), type)
    t.equal(eventResource(type), resource, type)
  }
})
