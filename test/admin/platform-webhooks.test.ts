import { createHmac } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { Agent, partnerInClientStore, signedInMember, signedInOwner } from './agent.js'

/** The admin page of the inbound platform webhooks (issue 45, point 17): state, receiver URLs, write-only secrets. */

const SECRET = 'shpss_admin_page_secret_0123456789'

const listed = async (app: FastifyInstance, tenant: Tenant): Promise<Array<{ platform: string, secretSet: boolean }>> =>
  (await call(app, { method: 'GET', url: '/v1/webhooks/platforms', key: tenant.key, store: tenant.storeId })).json().data

const section = (body: string, platform: string) => body.split(`data-platform="${platform}"`)[1].split('</section>')[0]

/** A Shopify delivery signed with `secret` by Shopify's documented algorithm (base64 HMAC-SHA256 of the raw body). */
const shopifyDelivery = (app: FastifyInstance, storeId: string, secret: string, body: string) => app.inject({
  method: 'POST',
  url: `/v1/webhooks/shopify/${storeId}`,
  headers: {
    'content-type': 'application/json',
    'x-shopify-topic': 'products/update',
    'x-shopify-webhook-id': `dlv-${storeId}-${Date.now()}`,
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64')
  },
  payload: body
})

t.test('the page lists the three platforms, none with a secret, each with its receiver URL', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const page = await agent.get('/admin/platform-webhooks')
  t.equal(page.statusCode, 200)
  for (const platform of ['shopify', 'woocommerce', 'bigcommerce']) {
    const part = section(page.body, platform)
    t.match(part, 'Not set', platform)
    t.match(part, `${app.config.publicUrl}/v1/webhooks/${platform}/${tenant.storeId}`, platform)
  }
})

t.test('a secret set on the page is never shown, verifies the platform\'s deliveries, and is audited as the person', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/platform-webhooks')
  const res = await agent.post('/admin/platform-webhooks/shopify', { secret: `  ${SECRET}\n` })
  t.equal(res.statusCode, 303)
  const page = await agent.get('/admin/platform-webhooks')
  t.match(page.body, 'The Shopify secret is set.')
  t.match(section(page.body, 'shopify'), '<span class="badge active">Set</span>')
  t.match(section(page.body, 'shopify'), 'Replace Shopify secret')
  t.notMatch(page.body, SECRET)
  t.match(await listed(app, tenant), [{ platform: 'shopify', secretSet: true }])

  // Pasted with spaces around it, the secret is stored as the platform shows it: its signature verifies.
  const body = JSON.stringify({ id: 1, title: 'Linen shirt', updated_at: '2026-01-01T00:00:00Z' })
  t.equal((await shopifyDelivery(app, tenant.storeId, SECRET, body)).statusCode, 200)

  const audit = await call(app, {
    method: 'GET',
    url: '/v1/account/audit-log?action=platform_webhook.secret_set',
    key: tenant.key,
    store: tenant.storeId
  })
  const log = audit.json().data
  t.match(log, [{ actor: `person:${tenant.owner.id}`, subject: `store:${tenant.storeId}`, details: { platform: 'shopify' } }])
  t.notMatch(JSON.stringify(log), SECRET)
})

t.test('a secret the API refuses is explained on its platform\'s form and never sent back', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/platform-webhooks')
  const cases: Array<[string, string]> = [
    ['', 'Secret: must NOT have fewer than 8 characters'],
    ['zq7Kx', 'Secret: must NOT have fewer than 8 characters'],
    ['Q'.repeat(501), 'Secret: must NOT have more than 500 characters']
  ]
  for (const [secret, message] of cases) {
    const res = await agent.post('/admin/platform-webhooks/woocommerce', { secret })
    t.equal(res.statusCode, 400, message)
    t.match(section(res.body, 'woocommerce'), message)
    t.notMatch(section(res.body, 'shopify'), 'role="alert"', 'only the form sent shows the refusal')
    if (secret) t.notMatch(res.body, secret, 'the refused secret is not sent back')
  }
  t.same(await listed(app, tenant), [])
})

t.test('a platform the service does not know is not found', async (t) => {
  const app = await sharedApp()
  const { agent } = await signedInOwner(app)
  await agent.get('/admin/platform-webhooks')
  t.equal((await agent.post('/admin/platform-webhooks/magento', { secret: SECRET })).statusCode, 404)
})

t.test('an editor sets a secret, as the API lets editors write webhooks', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  t.match((await agent.get('/admin/stores')).body, 'href="/admin/platform-webhooks"')
  await agent.get('/admin/platform-webhooks')
  t.equal((await agent.post('/admin/platform-webhooks/bigcommerce', { secret: SECRET })).statusCode, 303)
  t.match(await listed(app, tenant), [{ platform: 'bigcommerce', secretSet: true }])
})

t.test('a partner granted viewer sees whether the client\'s secrets are set but cannot set one', async (t) => {
  const { app, client, partner } = await partnerInClientStore('viewer')
  await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/woocommerce',
    key: client.key,
    store: client.storeId,
    payload: { secret: SECRET }
  })
  const page = await partner.get('/admin/platform-webhooks')
  t.match(section(page.body, 'woocommerce'), '<span class="badge active">Set</span>')
  t.match(page.body, `/v1/webhooks/shopify/${client.storeId}`)
  t.notMatch(page.body, 'name="secret"')
  t.equal((await partner.post('/admin/platform-webhooks/shopify', { secret: 'partner-chosen-secret' })).statusCode, 403)
  t.match(await listed(app, client), [{ platform: 'woocommerce' }])
  t.equal((await listed(app, client)).length, 1)
})

t.test('another organization neither sees a store\'s secret state nor sets its secret, even naming the store', async (t) => {
  const app = await sharedApp()
  const victim = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/shopify',
    key: victim.key,
    store: victim.storeId,
    payload: { secret: SECRET }
  })
  const { tenant: other, agent } = await signedInOwner(app)
  await agent.get('/admin/stores')
  await agent.post('/admin/stores/select', { store: victim.storeId })
  const page = await agent.get('/admin/platform-webhooks')
  t.notMatch(page.body, victim.storeId)
  t.match(section(page.body, 'shopify'), 'Not set')
  t.equal((await agent.post('/admin/platform-webhooks/shopify', { secret: 'attacker-chosen-secret' })).statusCode, 303)
  t.match(await listed(app, other), [{ platform: 'shopify', secretSet: true }], 'the post set the signed-in organization\'s own store')
  t.equal(
    (await shopifyDelivery(app, victim.storeId, SECRET, '{}')).statusCode,
    200,
    'the victim\'s own secret still verifies its deliveries'
  )
})

t.test('a lapsed store\'s platform webhooks page refuses as the API does, and no secret is set', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  t.equal((await agent.get('/admin/platform-webhooks')).statusCode, 403)
  t.equal((await agent.post('/admin/platform-webhooks/shopify', { secret: SECRET })).statusCode, 403)
  t.equal((await app.db('platform_webhook_secrets').where({ store_env_id: tenant.storeId })).length, 0)
})

t.test('a secret form sent without its CSRF token sets nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/platform-webhooks')
  t.equal((await agent.post('/admin/platform-webhooks/shopify', { secret: SECRET, _csrf: '' })).statusCode, 403)
  t.equal((await app.db('platform_webhook_secrets').where({ store_env_id: tenant.storeId })).length, 0)
})
