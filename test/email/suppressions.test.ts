import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeKey, makeTenant, makeStore, type Tenant } from '../factories.js'
import { parseMail, smtpReceiver } from './smtp.js'

const HOUR = 3_600_000
const smtp = await smtpReceiver(t)
const clock = manualClock(Date.parse('2026-11-23T12:00:00.000Z'))
const app = await build(t, { clock, config: { smtpUrl: smtp.url, reviewRequestDelayHours: 48 } })

let n = 0
const address = () => `person-${++n}-${Date.now()}@example.test`

async function testSend (tenant: Tenant, to: string, store = tenant.storeId) {
  return call(app, { method: 'POST', url: '/v1/email/test', key: tenant.key, store, payload: { templateKey: 'review_request', to } })
}

function received (to: string) {
  const found = smtp.messages.filter((m) => m.to.includes(to))
  return found.map((m) => parseMail(m.raw))
}

function unsubscribePath (mail: ReturnType<typeof parseMail>): string {
  const url = /^<(http:\/\/127\.0\.0\.1:3000(\/v1\/email\/unsubscribe\/[0-9A-Za-z]{40}))>$/.exec(mail.headers.get('list-unsubscribe') ?? '')
  if (!url) throw new Error(`no List-Unsubscribe URL in ${mail.headers.get('list-unsubscribe')}`)
  return url[2]
}

t.test('every mail carries List-Unsubscribe with an unguessable URL, the RFC 8058 one-click header and a visible link', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  const res = await testSend(tenant, to)
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'sent')
  const [mail] = received(to)
  t.equal(mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click')
  const path = unsubscribePath(mail)
  t.match(mail.text, `Unsubscribe: http://127.0.0.1:3000${path}`)
  t.match(mail.html, `href="http://127.0.0.1:3000${path}"`)
  const row = await app.db('email_messages').where({ store_env_id: tenant.storeId }).first()
  t.not(row.unsubscribe_token_hash, path.split('/').at(-1), 'only a hash of the token is stored')
})

t.test('a one-click POST from the mailbox provider suppresses the address, and the next mail is not sent', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await testSend(tenant, to)
  const path = unsubscribePath(received(to)[0])
  const res = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click'
  })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'You are unsubscribed')
  const list = await call(app, { method: 'GET', url: '/v1/email-suppressions', key: tenant.key, store: tenant.storeId })
  t.same(list.json().data.map((s: { email: string, reason: string }) => [s.email, s.reason]), [[to, 'unsubscribed']])
  const again = await testSend(tenant, to)
  t.equal(again.json().status, 'suppressed')
  t.match(again.json().reason, /suppression list \(unsubscribed since/)
  t.equal(received(to).length, 1, 'nothing more reached the SMTP server')
})

t.test('the one-click POST also works as multipart/form-data and repeating it changes nothing', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await testSend(tenant, to)
  const path = unsubscribePath(received(to)[0])
  const boundary = 'xyz'
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload
    })
    t.equal(res.statusCode, 200)
  }
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'email_suppression.created' })
  t.equal(events.length, 1)
})

t.test('the visible link shows a confirmation page first and suppresses nothing until confirmed', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await testSend(tenant, to)
  const path = unsubscribePath(received(to)[0])
  const page = await app.inject({ method: 'GET', url: path })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], 'text/html')
  t.match(page.body, `<form method="post" action="/v1${path.slice(3)}">`)
  t.notMatch(page.body, to, 'the public page never shows the whole address')
  t.equal((await call(app, { method: 'GET', url: '/v1/email-suppressions', key: tenant.key, store: tenant.storeId })).json().meta.total, 0)
})

t.test('an unknown or malformed unsubscribe token is a 404', async (t) => {
  for (const token of ['A'.repeat(40), 'short', '%F0%9F%98%80'.repeat(5)]) {
    const res = await app.inject({ method: 'POST', url: `/v1/email/unsubscribe/${token}` })
    t.equal(res.statusCode, 404, token)
    t.equal(res.json().code, 'not_found')
  }
})

t.test('a suppression added by the API stops the store\'s review request, which is skipped saying why', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'mug', title: 'Mug' }] }
  })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{
        platformOrderId: 'o-1',
        customerEmail: to.toUpperCase(),
        fulfilledAt: new Date(clock()).toISOString(),
        lineItems: [{ platformProductId: 'mug', quantity: 1 }]
      }]
    }
  })
  const added = await call(app, {
    method: 'POST',
    url: '/v1/email-suppressions',
    key: tenant.key,
    store: tenant.storeId,
    payload: { email: to, reason: 'bounced' }
  })
  t.equal(added.statusCode, 201)
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const order = (await call(app, { method: 'GET', url: '/v1/orders/o-1', key: tenant.key, store: tenant.storeId })).json()
  t.equal(order.reviewRequest.state, 'skipped')
  t.match(order.reviewRequest.reason, /suppression list \(bounced/)
  const log = (await call(app, { method: 'GET', url: '/v1/email/messages?status=suppressed', key: tenant.key, store: tenant.storeId }))
    .json()
  t.equal(log.data.length, 1)
  t.match(log.data[0], { to, kind: 'review_request', status: 'suppressed' })
  t.equal(received(to).length, 0)
})

t.test('a review request that goes out is logged as sent with its template and subject', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'mug', title: 'Mug', url: 'https://shop.example/mug' }] }
  })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: {
      orders: [{
        platformOrderId: 'o-2',
        customerEmail: to,
        customerName: 'Ann',
        fulfilledAt: new Date(clock()).toISOString(),
        lineItems: [{ platformProductId: 'mug', quantity: 1 }]
      }]
    }
  })
  clock.advance(48 * HOUR)
  await app.services.reviewRequests.runDue(tenant.storeId)
  const [mail] = received(to)
  t.match(mail.text, 'Hi Ann,')
  t.match(mail.html, '<a href="https://shop.example/mug">Mug</a>')
  const log = (await call(app, { method: 'GET', url: '/v1/email/messages', key: tenant.key, store: tenant.storeId })).json()
  t.match(log.data, [{
    to,
    kind: 'review_request',
    status: 'sent',
    reason: 'Handed to the SMTP server',
    subject: 'How was your order from Main store?'
  }])
})

t.test('suppressions: adding twice with the same reason is a 200 no-op, a new reason updates, DELETE removes', async (t) => {
  const tenant = await makeTenant(app)
  const req = (method: 'POST' | 'DELETE' | 'GET', url: string, payload?: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  t.equal(
    (await req('POST', '/v1/email-suppressions', { email: ' Bob@Example.test ', reason: 'manual' })).statusCode,
    400,
    'spaces are not an address'
  )
  t.equal((await req('POST', '/v1/email-suppressions', { email: 'Bob@Example.test', reason: 'manual' })).statusCode, 201)
  t.equal((await req('POST', '/v1/email-suppressions', { email: 'bob@example.test', reason: 'manual' })).statusCode, 200)
  const changed = await req('POST', '/v1/email-suppressions', { email: 'bob@example.test', reason: 'complained' })
  t.match(changed.json(), { email: 'bob@example.test', reason: 'complained' })
  t.equal((await req('GET', '/v1/email-suppressions?reason=complained')).json().meta.total, 1)
  t.equal((await req('GET', '/v1/email-suppressions?updatedSince=2999-01-01T00:00:00Z')).json().meta.total, 0)
  t.equal((await req('DELETE', '/v1/email-suppressions/BOB%40example.test')).statusCode, 204)
  t.equal((await req('DELETE', '/v1/email-suppressions/bob%40example.test')).statusCode, 404)
  const types = (await app.db('events').where({ store_env_id: tenant.storeId }).orderBy('id').pluck('type')).filter((type: string) =>
    type.startsWith('email_')
  )
  t.same(types, ['email_suppression.created', 'email_suppression.updated', 'email_suppression.deleted'])
})

t.test('suppression input at the edges is a 400, never a 500', async (t) => {
  const tenant = await makeTenant(app)
  const bad = [
    { email: `${'a'.repeat(320)}@example.test`, reason: 'manual' },
    { email: 'not-an-address', reason: 'manual' },
    { email: 'ann@example.test', reason: 'spam' },
    { email: 'ann@example.test' },
    { email: 'ann@example.test', reason: 'manual', extra: 1 }
  ]
  for (const payload of bad) {
    const res = await call(app, { method: 'POST', url: '/v1/email-suppressions', key: tenant.key, store: tenant.storeId, payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60))
  }
  const long = await call(app, {
    method: 'DELETE',
    url: `/v1/email-suppressions/${'x'.repeat(400)}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(long.statusCode, 400)
  const date = await call(app, {
    method: 'GET',
    url: '/v1/email-suppressions?updatedSince=0000-01-01T00:00:00Z',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(date.statusCode, 400)
})

t.test('one store cannot see, add to or remove from another store\'s suppressions or message log', async (t) => {
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const to = address()
  await call(app, { method: 'POST', url: '/v1/email-suppressions', key: a.key, store: a.storeId, payload: { email: to, reason: 'manual' } })
  await testSend(a, address())
  t.equal((await call(app, { method: 'GET', url: '/v1/email-suppressions', key: b.key, store: b.storeId })).json().meta.total, 0)
  t.equal((await call(app, { method: 'GET', url: '/v1/email/messages', key: b.key, store: b.storeId })).json().meta.total, 0)
  t.equal(
    (await call(app, { method: 'DELETE', url: `/v1/email-suppressions/${encodeURIComponent(to)}`, key: b.key, store: b.storeId }))
      .statusCode,
    404
  )
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/email-suppressions', key: b.key, store: a.storeId })).statusCode,
    404,
    'a key of org B cannot name store A'
  )
  // A second store of the same organization has its own list.
  const other = await makeStore(app, a)
  t.equal((await testSend(a, to, other)).json().status, 'sent')
})

t.test('a viewer can read the suppression list but not change it', async (t) => {
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  t.equal((await call(app, { method: 'GET', url: '/v1/email-suppressions', key: viewer.secret, store: tenant.storeId })).statusCode, 200)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/email-suppressions',
    key: viewer.secret,
    store: tenant.storeId,
    payload: { email: 'x@example.test', reason: 'manual' }
  })
  t.equal(res.json().code, 'role_read_only')
})

t.test('customer erasure can suppress an address in its own transaction through the service', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  await app.db.transaction(async (trx) => {
    await app.services.emailSuppressions.suppress(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, email: to, reason: 'manual' })
  })
  t.equal((await testSend(tenant, to)).json().status, 'suppressed')
})

t.test('an invitation email is logged in the organization\'s message log, without an unsubscribe header', async (t) => {
  const tenant = await makeTenant(app)
  const to = address()
  const { invitation } = await app.services.invitations.invite(
    { type: 'key', orgId: tenant.orgId, role: 'admin', scopes: [], storeIds: null, id: 'key_x' } as never,
    { email: to, role: 'editor' },
    null
  )
  t.ok(invitation)
  const log = (await call(app, { method: 'GET', url: '/v1/email/messages?kind=invitation', key: tenant.key, store: tenant.storeId })).json()
  t.match(log.data, [{ to, kind: 'invitation', status: 'sent', storeEnvId: null }])
  t.equal(received(to).length, 1)
  t.equal(received(to)[0].headers.get('list-unsubscribe'), undefined, 'not bulk mail: no unsubscribe header')
})
