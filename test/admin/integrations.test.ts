import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { connected } from '../oauth/oauth-helper.js'
import { decodeJwt } from 'jose'
import { createWebhook } from '../webhooks/support.js'
import { Agent, signedInMember, signedInOwner } from './agent.js'

t.test('an editor sees connections and webhooks but cannot register an OAuth client', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  const page = await agent.get('/admin/connections')
  t.equal(page.statusCode, 200)
  t.notMatch(page.body, 'Register client')
  const res = await agent.post('/admin/connections/clients', { name: 'Sneaky', redirect_uris: 'https://example.com/cb' })
  t.equal(res.statusCode, 403)
  t.equal((await app.db('oauth_clients').where({ org_id: tenant.orgId })).length, 0)
  t.equal((await agent.get('/admin/webhooks')).statusCode, 200)
})

t.test('a store on the free plan is not offered webhook registration, and a direct post is refused', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await app.db('store_envs').where({ id: tenant.storeId }).update({ plan: 'free' })
  const page = await agent.get('/admin/webhooks')
  t.match(page.body, 'need the Growth plan')
  const res = await agent.post('/admin/webhooks', { url: 'http://127.0.0.1:9/hook', events: '*' })
  t.equal(res.statusCode, 403)
  t.match(res.body, /growth plan/i)
  t.equal((await call(app, { method: 'GET', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId })).json().data.length, 0)
})

t.test('a store that moved to the free plan can still retire its webhooks from the webhooks page', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const hook = await createWebhook(app, tenant, 'http://127.0.0.1:9/hook')
  await app.services.bootstrap.setPlan({ store: tenant.storeId, plan: 'free' })
  const page = await agent.get('/admin/webhooks')
  t.match(page.body, `/admin/webhooks/${hook.id}/retire`, 'the page offers to retire it')
  t.equal((await agent.get(`/admin/webhooks/${hook.id}/retire`)).statusCode, 200)
  t.equal((await agent.post(`/admin/webhooks/${hook.id}/retire`)).statusCode, 303)
  const after = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(after.json().status, 'retired')
})

t.test('a webhook form without events is refused with a message and keeps what was typed', async (t) => {
  const app = await sharedApp()
  const { agent } = await signedInOwner(app)
  await agent.get('/admin/webhooks')
  const res = await agent.post('/admin/webhooks', { url: 'http://127.0.0.1:9/typed' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Choose the events')
  t.match(res.body, 'value="http://127.0.0.1:9/typed"')
})

t.test('one organization cannot retire another store\'s webhook nor see its deliveries', async (t) => {
  const app = await sharedApp()
  const theirs = await makeTenant(app)
  const hook = await createWebhook(app, theirs, 'http://127.0.0.1:9/hook')
  const { agent } = await signedInOwner(app)
  await agent.get('/admin/webhooks')
  t.equal((await agent.get(`/admin/webhooks/${hook.id}/deliveries`)).statusCode, 404)
  t.equal((await agent.get(`/admin/webhooks/${hook.id}/retire`)).statusCode, 404)
  t.equal((await agent.post(`/admin/webhooks/${hook.id}/retire`)).statusCode, 404)
  const still = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: theirs.key, store: theirs.storeId })
  t.equal(still.json().status, 'active')
})

t.test('one organization cannot revoke another organization\'s connection', async (t) => {
  const { app, tenant, tokens } = await connected(t)
  const grantId = decodeJwt(tokens.access_token!).grant_id as string
  const other = await makeTenant(app)
  const agent = new Agent(app)
  await agent.signIn(other.owner.email, other.owner.password)
  await agent.get('/admin/connections')
  t.equal((await agent.get(`/admin/connections/${grantId}/revoke`)).statusCode, 404)
  t.equal((await agent.post(`/admin/connections/${grantId}/revoke`)).statusCode, 404)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token!, store: tenant.storeId })).statusCode,
    200,
    'the token still works'
  )
})
