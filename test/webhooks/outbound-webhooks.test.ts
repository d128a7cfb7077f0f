import t from 'tap'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { createWebhook } from './support.js'

const URL_OK = 'https://receiver.example/hooks'

t.test('registering a webhook returns its whsec_ secret once; list and get never show it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/x', events: ['*'], description: 'CRM' }
  })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body, {
    id: /^whk_/,
    url: 'http://127.0.0.1:9/x',
    events: ['*'],
    description: 'CRM',
    status: 'active',
    secret: /^whsec_[0-9A-Za-z]{32}$/
  })
  const list = await call(app, { method: 'GET', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId })
  t.equal(list.json().meta.total, 1)
  t.notOk(list.body.includes(body.secret))
  t.notOk('secret' in list.json().data[0])
  const one = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${body.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(one.statusCode, 200)
  t.notOk(one.body.includes(body.secret))
  const row = await app.db('webhook_subscriptions').where({ id: body.id }).first()
  t.notOk(JSON.stringify(row).includes(body.secret.slice(6)), 'stored sealed, not in clear')
})

t.test('webhook URLs must be http(s) without credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const url of ['ftp://receiver.example/x', 'https://user:pass@receiver.example/x', 'not a url', 'file:///etc/passwd']) {
    const res = await call(app, {
      method: 'POST',
      url: '/v1/outbound-webhooks',
      key: tenant.key,
      store: tenant.storeId,
      payload: { url, events: ['*'] }
    })
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().code, 'invalid_url', url)
  }
})

t.test('events must be known types or ["*"] alone', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const unknown = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: URL_OK, events: ['review.creatd'] }
  })
  t.equal(unknown.json().code, 'invalid_event_type')
  const mixed = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/', events: ['*', 'review.created'] }
  })
  t.equal(mixed.statusCode, 400)
  const loyalty = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/', events: ['loyalty.birthday_reward', 'loyalty.referral_reward'] }
  })
  t.equal(loyalty.statusCode, 201, 'loyalty rewards are event types')
})

t.test('a webhook is retired with 204 after the store moves to a plan without webhooks', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'growth' })
  const made = (await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/', events: ['*'] }
  })).json()
  await app.services.bootstrap.setPlan({ store: tenant.storeId, plan: 'free' })
  t.equal(
    (await call(app, { method: 'DELETE', url: `/v1/outbound-webhooks/${made.id}`, key: tenant.key, store: tenant.storeId })).statusCode,
    204
  )
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${made.id}`, key: tenant.key, store: tenant.storeId })).json().status,
    'retired'
  )
})

t.test('registering a webhook on the free plan is refused with plan_required', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/', events: ['*'] }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'plan_required')
})

t.test('a viewer key cannot register a webhook', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const res = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: viewer.secret,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:9/', events: ['*'] }
  })
  t.equal(res.json().code, 'role_read_only')
})

t.test('DELETE retires a webhook: 204, then shown as retired and left out of the default list', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = await createWebhook(app, tenant, 'http://127.0.0.1:9/')
  const del = await call(app, { method: 'DELETE', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(del.statusCode, 204)
  const again = await call(app, { method: 'DELETE', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(again.statusCode, 204, 'retiring again changes nothing')
  const got = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.match(got.json(), { status: 'retired', statusReason: /^Retired by api_key:/ })
  const list = await call(app, { method: 'GET', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId })
  t.equal(list.json().meta.total, 0)
  const retired = await call(app, { method: 'GET', url: '/v1/outbound-webhooks?status=retired', key: tenant.key, store: tenant.storeId })
  t.equal(retired.json().meta.total, 1)
})

t.test('another organization can neither see nor retire a webhook', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const hook = await createWebhook(app, tenant, 'http://127.0.0.1:9/')
  for (
    const [method, url] of [['GET', `/v1/outbound-webhooks/${hook.id}`], ['DELETE', `/v1/outbound-webhooks/${hook.id}`], [
      'GET',
      `/v1/outbound-webhooks/${hook.id}/deliveries`
    ]] as const
  ) {
    const res = await call(app, { method, url, key: other.key, store: other.storeId })
    t.equal(res.statusCode, 404, `${method} ${url}`)
  }
  const list = await call(app, { method: 'GET', url: '/v1/outbound-webhooks', key: other.key, store: other.storeId })
  t.equal(list.json().meta.total, 0)
  const still = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(still.json().status, 'active')
})

t.test('responses under /outbound-webhooks carry the deprecation headers until the sunset, and not after', async (t) => {
  const clock = manualClock(Date.parse('2027-01-14T23:59:59Z'))
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const before = await call(app, { method: 'GET', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId })
  t.equal(before.headers.sunset, 'Fri, 15 Jan 2027 00:00:00 GMT')
  t.ok(before.headers.deprecation)
  t.equal(before.headers.link, '<http://127.0.0.1:3000/docs/versioning>; rel="deprecation"')
  const refused = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events' })
  t.equal(refused.statusCode, 401)
  t.ok(refused.headers.sunset, 'error responses too')
  const other = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId })
  t.notOk(other.headers.sunset, 'other resources do not')

  clock.set(Date.parse('2027-01-15T00:00:00Z'))
  const after = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: tenant.key, store: tenant.storeId })
  t.equal(after.statusCode, 200)
  t.notOk(after.headers.sunset)
  t.notOk(after.headers.deprecation)
  t.notOk(after.headers.link)
})
