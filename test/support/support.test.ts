import t from 'tap'
import { build, call, eventsOf, sharedApp, testConfig } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { smtpReceiver } from '../smtp.js'
import { loadConfig } from '../../src/config.js'

const ask = { subject: 'Imports fail', body: 'Our nightly import is refused since this morning.' }

t.test('every response carries an x-request-id, also a refusal before any credential is known', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/support/requests' })
  t.equal(res.statusCode, 401)
  t.match(res.headers['x-request-id'], /^req_[0-9A-Za-z]{20}$/)
})

t.test('a support request carries the store, the credential and its recent failed request ids, newest first', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeKey(app, tenant, 'admin')
  const failed = []
  for (const url of ['/v1/products/nope', '/v1/orders/nope']) {
    const res = await call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 404)
    failed.unshift(res.headers['x-request-id'])
  }
  await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })
  await call(app, { method: 'GET', url: '/v1/reviews/nope', key: other.secret, store: tenant.storeId })

  const res = await call(app, { method: 'POST', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId, payload: ask })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { id: /^sup_/, storeEnvId: tenant.storeId, credential: /^api_key:/, ...ask, mailStatus: 'not_configured' })
  t.same(res.json().failedRequestIds, failed, 'only this credential\'s failures, not its successes or another key\'s')
})

t.test('with SMTP and SUPPORT_EMAIL the request is mailed there with its context', async (t) => {
  const smtp = await smtpReceiver(t)
  const app = await build(t, { config: { smtpUrl: smtp.url, supportEmail: 'help@operator.example' } })
  const tenant = await makeTenant(app)
  const failedId = (await call(app, { method: 'GET', url: '/v1/products/nope', key: tenant.key, store: tenant.storeId }))
    .headers['x-request-id'] as string
  const res = await call(app, { method: 'POST', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId, payload: ask })
  t.equal(res.json().mailStatus, 'sent')
  t.equal(smtp.messages.length, 1)
  const message = smtp.messages[0].replace(/=\r\n/g, '')
  t.match(message, /To: help@operator\.example/)
  t.match(message, /Subject: \[support\] Imports fail/)
  t.match(message, tenant.storeId)
  t.match(message, failedId)
  t.match(message, 'Our nightly import is refused')
  const listed = await call(app, { method: 'GET', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId })
  t.equal(listed.json().data[0].mailStatus, 'sent')
})

t.test('a support request mailed by SMTP appends support_request.created, then .updated with how the mail went', async (t) => {
  const smtp = await smtpReceiver(t)
  const app = await build(t, { config: { smtpUrl: smtp.url, supportEmail: 'help@operator.example' } })
  const tenant = await makeTenant(app)
  const { id } = (await call(app, { method: 'POST', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId, payload: ask }))
    .json()
  t.match(await eventsOf(app, tenant.storeId, 'support_request.'), [
    { type: 'support_request.created', data: { id, mailStatus: 'queued' } },
    { type: 'support_request.updated', data: { id, mailStatus: 'sent' } }
  ])
})

t.test('without SMTP the mail waits in the local outbox with the request', async (t) => {
  const app = await build(t, { config: { supportEmail: 'help@operator.example' } })
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'POST', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId, payload: ask })
  t.equal(res.json().mailStatus, 'queued')
  const mail = await app.db('mail_outbox').where({ store_env_id: tenant.storeId }).first()
  t.match(mail, { to: 'help@operator.example', subject: '[support] Imports fail' })
})

t.test('GET /support/requests lists the store\'s requests only, newest first', async (t) => {
  const app = await sharedApp()
  const [a, b] = [await makeTenant(app), await makeTenant(app)]
  for (const subject of ['first', 'second']) {
    await call(app, { method: 'POST', url: '/v1/support/requests', key: a.key, store: a.storeId, payload: { ...ask, subject } })
  }
  await call(app, { method: 'POST', url: '/v1/support/requests', key: b.key, store: b.storeId, payload: ask })
  const list = (await call(app, { method: 'GET', url: '/v1/support/requests', key: a.key, store: a.storeId })).json()
  t.equal(list.meta.total, 2)
  t.same(new Set(list.data.map((r: { subject: string }) => r.subject)), new Set(['first', 'second']))
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/support/requests', key: a.key, store: b.storeId })).json().code,
    'store_env_not_found'
  )
})

t.test('a support request refuses blank, over-long or extra fields with 400; editors may not file one', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const payload of [
      { subject: ' ', body: 'x' },
      { subject: 'x', body: '\n\t' },
      { subject: 'x'.repeat(201), body: 'x' },
      { subject: 'x', body: 'x'.repeat(10_001) },
      { subject: 'x' },
      { ...ask, storeEnvId: 'env_other' }
    ]
  ) {
    const res = await call(app, { method: 'POST', url: '/v1/support/requests', key: tenant.key, store: tenant.storeId, payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.equal(res.json().code, 'invalid_request')
  }
  const editor = await makeKey(app, tenant, 'editor')
  t.equal(
    (await call(app, { method: 'POST', url: '/v1/support/requests', key: editor.secret, store: tenant.storeId, payload: ask })).json().code,
    'role_forbidden'
  )
  const emoji = await call(app, {
    method: 'POST',
    url: '/v1/support/requests',
    key: tenant.key,
    store: tenant.storeId,
    payload: { subject: '🦊'.repeat(200), body: '🦊'.repeat(10_000) }
  })
  t.equal(emoji.statusCode, 201, 'the longest subject and body in four-byte characters fit')
})

t.test('SUPPORT_EMAIL is validated at start', async (t) => {
  const env = { DATA_DIR: testConfig().dataDir, SECRET_KEY: testConfig().secretKey }
  t.equal(loadConfig({ ...env, SUPPORT_EMAIL: 'help@operator.example' }).supportEmail, 'help@operator.example')
  for (const bad of ['not an address', 'a@b', 'x'.repeat(320) + '@example.test', 'a@b.c, c@d.e']) {
    t.throws(() => loadConfig({ ...env, SUPPORT_EMAIL: bad }), /SUPPORT_EMAIL/, bad.slice(0, 20))
  }
})
