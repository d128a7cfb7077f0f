import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, eventsOf, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'

/**
 * docs/contract/event-visibility.md#every-change-appends-an-event: every change appends an event, visible under the
 * scope rules of docs/contract/event-visibility.md#who-sees-which-events. These are the writes of settings that hold
 * secrets (the events carry none), a coupon pool, and support requests.
 */

async function store () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  // A key per request: these tests send more than one key's per-second budget.
  const api = async (method: string, url: string, payload?: object) =>
    call(app, {
      method: method as 'GET',
      url: `/v1${url}`,
      key: (await makeKey(app, tenant, 'admin')).secret,
      store: tenant.storeId,
      payload
    })
  return { app, tenant, api }
}

const storeEvents = (app: FastifyInstance, tenant: Tenant, prefix: string) => eventsOf(app, tenant.storeId, prefix)

t.test('an email provider set up, changed and removed appends email_provider.created, .updated and .deleted, without its key', async (t) => {
  const { app, tenant, api } = await store()
  t.equal((await api('PUT', '/email/providers/klaviyo', { apiKey: 'pk_secretvalue_9876' })).statusCode, 200)
  t.equal((await api('PUT', '/email/providers/klaviyo', { enabled: false })).statusCode, 200)
  t.equal((await api('DELETE', '/email/providers/klaviyo')).statusCode, 204)
  t.equal((await api('DELETE', '/email/providers/klaviyo')).statusCode, 404, 'a second removal finds nothing')
  const events = await storeEvents(app, tenant, 'email_provider.')
  t.match(events, [
    { type: 'email_provider.created', data: { provider: 'klaviyo', enabled: true, apiKeyLast4: '9876' } },
    { type: 'email_provider.updated', data: { provider: 'klaviyo', enabled: false } },
    { type: 'email_provider.deleted', data: { provider: 'klaviyo' } }
  ])
  t.equal(events.length, 3)
  t.notOk(events.some((e) => e.raw.includes('pk_secretvalue')), 'no API key in the log')
})

t.test('a webhook provider\'s signing secret is shown once and never logged', async (t) => {
  const { app, tenant, api } = await store()
  const created = await api('PUT', '/email/providers/webhook', { baseUrl: 'https://receiver.example/in' })
  const secret = created.json().signingSecret as string
  t.match(secret, /^whsec_/)
  t.notOk((await storeEvents(app, tenant, 'email_provider.')).some((e) => e.raw.includes(secret.slice(6))))
})

t.test('codes added to a coupon pool append review_incentive.updated with the pool\'s count, never the codes', async (t) => {
  const { app, tenant, api } = await store()
  const { id } = (await api('POST', '/review-incentives', { type: 'coupon', verifiedOnly: false })).json()
  t.match((await api('POST', `/review-incentives/${id}/codes`, { codes: ['THANKS-1A', 'THANKS-2B'] })).json(), { added: 2 })
  t.match((await api('POST', `/review-incentives/${id}/codes`, { codes: ['THANKS-1A'] })).json(), { added: 0, duplicates: 1 })
  const updates = (await storeEvents(app, tenant, 'review_incentive.')).filter((e) => e.type === 'review_incentive.updated')
  t.equal(updates.length, 1, 'one change, one event: a re-send of known codes changes nothing')
  t.match(updates[0].data, { id, pool: { available: 2 } })
  t.notOk(updates[0].raw.includes('THANKS-'))
})

t.test('a support request appends support_request.created', async (t) => {
  const { app, tenant, api } = await store()
  const created = (await api('POST', '/support/requests', { subject: 'Import stuck', body: 'Since this morning.' })).json()
  t.match(await storeEvents(app, tenant, 'support_request.'), [{
    type: 'support_request.created',
    data: { id: created.id, subject: 'Import stuck' }
  }])
})

t.test('a platform\'s secret and API credentials set or removed append platform_webhook.updated, never the values', async (t) => {
  const { app, tenant, api } = await store()
  t.equal((await api('PUT', '/webhooks/platforms/bigcommerce', { secret: 'platform-secret-value-1234' })).statusCode, 200)
  const credentials = { storeHash: 'abc123', accessToken: 'tokenvalue0123456789abcdef', storefrontUrl: 'https://shop.example.com' }
  t.equal((await api('PUT', '/webhooks/platforms/bigcommerce/credentials', credentials)).statusCode, 200)
  t.equal((await api('DELETE', '/webhooks/platforms/bigcommerce/credentials')).statusCode, 204)
  t.equal((await api('DELETE', '/webhooks/platforms/bigcommerce/credentials')).statusCode, 404)
  const events = await storeEvents(app, tenant, 'platform_webhook.')
  t.match(events.map((e) => e.data), [
    { platform: 'bigcommerce', secretSet: true, apiCredentials: null },
    { platform: 'bigcommerce', secretSet: true, apiCredentials: { updatedAt: String } },
    { platform: 'bigcommerce', secretSet: true, apiCredentials: null }
  ])
  t.equal(events.length, 3)
  t.notOk(events.some((e) => e.raw.includes('platform-secret-value') || e.raw.includes('tokenvalue')), 'no secret in the log')
})
