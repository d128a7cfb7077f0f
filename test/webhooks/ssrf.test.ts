import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { isPrivateAddress } from '../../src/modules/delivery/url-guard.js'
import { newSubscription } from '../../src/modules/delivery/subscriptions.js'
import { appendEvent, receiver, testWorker } from './support.js'

t.test('private, loopback and link-local addresses are classified as private', async (t) => {
  for (
    const ip of [
      '::ffff:7f00:1',
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1'
    ]
  ) {
    t.ok(isPrivateAddress(ip), ip)
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.notOk(isPrivateAddress(ip), ip)
})

t.test('IPv6 forms that embed a private IPv4 address are classified as private', async (t) => {
  const embedded = [
    '::127.0.0.1', '::7f00:1', '::a00:1', // IPv4-compatible (::/96)
    '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', // IPv4-translated (::ffff:0:0:0/96)
    '2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101::', // 6to4 (2002::/16)
    '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.0.0.1', '64:ff9b:1::a00:1' // NAT64
  ]
  for (const ip of embedded) t.ok(isPrivateAddress(ip), ip)
})

t.test('a public IPv4 address reached through NAT64 stays allowed', async (t) => {
  t.notOk(isPrivateAddress('64:ff9b::8.8.8.8'))
  t.notOk(isPrivateAddress('64:ff9b::5db8:d822'))
})

t.test('registration refuses webhook URLs that reach loopback through IPv4-compatible, translated or 6to4 addresses', async (t) => {
  const app = await build(t, { config: { webhookAllowPrivate: false } })
  const tenant = await makeTenant(app)
  for (const url of ['http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[2002:7f00:1::]/', 'http://[64:ff9b::127.0.0.1]/']) {
    const res = await call(app, {
      method: 'POST',
      url: '/v1/outbound-webhooks',
      key: tenant.key,
      store: tenant.storeId,
      payload: { url, events: ['*'] }
    })
    t.equal(res.json().code, 'invalid_url', url)
    const hook = await call(app, {
      method: 'POST',
      url: '/v1/connectors/hooks',
      key: tenant.key,
      store: tenant.storeId,
      payload: { targetUrl: url, event: 'review.created' }
    })
    t.equal(hook.json().code, 'invalid_url', `hook ${url}`)
  }
})

t.test('delivery refuses a stored URL with an IPv4-compatible, translated or 6to4 loopback address', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock, config: { webhookAllowPrivate: false } })
  const tenant = await makeTenant(app)
  for (const url of ['http://[::127.0.0.1]:9/', 'http://[::ffff:0:127.0.0.1]:9/', 'http://[2002:7f00:1::]:9/']) {
    const { row } = await newSubscription(
      { kind: 'webhook', orgId: tenant.orgId, storeId: tenant.storeId, url, events: ['*'], createdBy: 'test', now: clock() },
      app.config.secretKey,
      true
    )
    await app.services.delivery.subscriptions.insert(row)
  }
  await appendEvent(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  const attempts = await app.db('webhook_attempts').where({ store_env_id: tenant.storeId })
  t.equal(attempts.length, 3)
  for (const a of attempts) t.match(a.error, /^Refused: /)
})

t.test('registration refuses private targets, also behind a name, unless the operator allows them', async (t) => {
  const app = await build(t, { config: { webhookAllowPrivate: false } })
  const tenant = await makeTenant(app)
  const second = await makeKey(app, tenant, 'admin')
  for (
    const url of [
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://10.0.0.5/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://0.0.0.0/'
    ]
  ) {
    const res = await call(app, {
      method: 'POST',
      url: '/v1/outbound-webhooks',
      key: tenant.key,
      store: tenant.storeId,
      payload: { url, events: ['*'] }
    })
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().code, 'invalid_url', url)
    const hook = await call(app, {
      method: 'POST',
      url: '/v1/connectors/hooks',
      key: second.secret,
      store: tenant.storeId,
      payload: { targetUrl: url, event: 'review.created' }
    })
    t.equal(hook.json().code, 'invalid_url', `hook ${url}`)
  }
  const allowed = await build(t, { config: { webhookAllowPrivate: true } })
  const res = await call(allowed, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:8080/x', events: ['*'] }
  })
  t.equal(res.statusCode, 201, 'allowed by WEBHOOK_ALLOW_PRIVATE')
})

t.test('delivery time checks again: a target that became private is refused without a request', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock, config: { webhookAllowPrivate: false } })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  for (const url of [rx.url, `http://localhost:${rx.port}/hook`]) {
    // Registered while allowed (or before the name moved): written directly, as the API would refuse it now.
    const { row } = await newSubscription(
      { kind: 'webhook', orgId: tenant.orgId, storeId: tenant.storeId, url, events: ['*'], createdBy: 'test', now: clock() },
      app.config.secretKey,
      true
    )
    await app.services.delivery.subscriptions.insert(row)
  }
  await appendEvent(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(rx.received.length, 0, 'nothing reached the private receiver')
  const attempts = await app.db('webhook_attempts').where({ store_env_id: tenant.storeId })
  t.equal(attempts.length, 2)
  for (const a of attempts) t.match(a.error, /^Refused: /)
})

t.test('the refusal of a private URL tells how an operator allows private addresses', async (t) => {
  const app = await build(t, { config: { webhookAllowPrivate: false } })
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/outbound-webhooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { url: 'http://127.0.0.1:4000/webhooks', events: ['*'] }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_url')
  t.match(res.json().message, /WEBHOOK_ALLOW_PRIVATE=true/)
})
