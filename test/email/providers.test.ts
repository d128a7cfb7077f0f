import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { verifySignature } from '../../src/modules/delivery/verify.js'
import { decrypt } from '../../src/lib/secrets.js'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { deliverUntil, testWorker } from '../webhooks/support.js'

interface Received { method: string, url: string, headers: IncomingHttpHeaders, body: string }

/** A local HTTP server standing in for a provider's API: it keeps each request and answers with `statuses` in turn. */
async function providerServer (t: Test, statuses: number[] = [202]) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => { body += chunk })
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      res.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `http://127.0.0.1:${address.port}`, received }
}

const clock = manualClock(Date.parse('2026-11-23T12:00:00.000Z'))
const app = await build(t, { clock })

/** What the loyalty module appends (another module owns it; here the event log is written directly). */
async function reward (
  app: FastifyInstance,
  tenant: Tenant,
  type = 'loyalty.referral_reward',
  data: Record<string, unknown> = { customer: { email: 'Ann@Example.test', name: 'Ann' }, points: 150 }
) {
  await app.db.transaction((trx) => app.services.events.append(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, type, data }))
}

const put = (tenant: Tenant, provider: string, payload: object) =>
  call(app, { method: 'PUT', url: `/v1/email/providers/${provider}`, key: tenant.key, store: tenant.storeId, payload })

t.test('a loyalty reward reaches Klaviyo as a Create Event request with its revision header', async (t) => {
  const tenant = await makeTenant(app)
  const klaviyo = await providerServer(t)
  const res = await put(tenant, 'klaviyo', { apiKey: 'pk_test_secret_1234', baseUrl: klaviyo.url })
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    provider: 'klaviyo',
    apiKeyLast4: '1234',
    enabled: true,
    events: ['loyalty.referral_reward', 'loyalty.birthday_reward']
  })
  await reward(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), klaviyo.received, 1)
  t.equal(klaviyo.received.length, 1)
  const [request] = klaviyo.received
  t.match(request, { method: 'POST', url: '/api/events/' })
  t.match(request.headers, {
    authorization: 'Klaviyo-API-Key pk_test_secret_1234',
    revision: '2024-10-15',
    'content-type': 'application/vnd.api+json'
  })
  t.notOk(request.headers['webhook-signature'] ?? request.headers['x-service-signature-v2'], 'Klaviyo\'s format, not our signatures')
  const body = JSON.parse(request.body)
  t.match(body, {
    data: {
      type: 'event',
      attributes: {
        metric: { data: { type: 'metric', attributes: { name: 'loyalty.referral_reward' } } },
        profile: { data: { type: 'profile', attributes: { email: 'ann@example.test' } } },
        properties: { points: '150' },
        time: '2026-11-23T12:00:00.000Z'
      }
    }
  })
  t.match(body.data.attributes.unique_id, /^evt_\d+$/)
  const sealed = await app.db('webhook_subscriptions').where({ store_env_id: tenant.storeId, kind: 'provider' }).first()
  t.notMatch(sealed.secret_sealed, 'pk_test_secret_1234', 'the API key is encrypted at rest')
})

t.test('a provider set up three times at once is one provider: each event is pushed once', async (t) => {
  const tenant = await makeTenant(app)
  const klaviyo = await providerServer(t)
  const answers = await Promise.all([1, 2, 3].map(() => put(tenant, 'klaviyo', { apiKey: 'pk_test_secret_1234', baseUrl: klaviyo.url })))
  t.same(answers.map((r) => r.statusCode), [200, 200, 200])
  await reward(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(klaviyo.received.length, 1)
})

t.test('a birthday reward reaches Mailchimp as a member event of the audience, keyed by the MD5 of the address', async (t) => {
  const tenant = await makeTenant(app)
  const mailchimp = await providerServer(t, [204])
  t.equal((await put(tenant, 'mailchimp', { apiKey: 'abc123-us21', baseUrl: mailchimp.url, listId: 'list42' })).statusCode, 200)
  await reward(app, tenant, 'loyalty.birthday_reward', { customer: { email: 'bob@example.test' }, points: 50 })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), mailchimp.received, 1)
  const [request] = mailchimp.received
  const hash = createHash('md5').update('bob@example.test').digest('hex')
  t.match(request, { method: 'POST', url: `/3.0/lists/list42/members/${hash}/events` })
  t.equal(request.headers.authorization, `Basic ${Buffer.from('evidence-hub:abc123-us21').toString('base64')}`)
  t.match(JSON.parse(request.body), {
    name: 'loyalty_birthday_reward',
    properties: { points: '50' },
    occurred_at: '2026-11-23T12:00:00.000Z',
    is_syncing: false
  })
})

t.test('the generic webhook gets the outbound-webhook body, signed with the secret shown once', async (t) => {
  const tenant = await makeTenant(app)
  const hook = await providerServer(t, [200])
  const first = (await put(tenant, 'webhook', { baseUrl: `${hook.url}/in` })).json()
  t.match(first.signingSecret, /^whsec_/)
  t.equal((await put(tenant, 'webhook', { events: ['loyalty.referral_reward'] })).json().signingSecret, undefined, 'not shown again')
  await reward(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), hook.received, 1)
  const [request] = hook.received
  t.equal(request.url, '/in')
  t.match(JSON.parse(request.body), { type: 'loyalty.referral_reward', storeEnvId: tenant.storeId, data: { points: 150 } })
  t.match(verifySignature(request.body, request.headers['x-service-signature-v2'], first.signingSecret, { now: clock() }), { ok: true })
  // The Standard Webhooks headers too; this file's clock is in the past, so the library signs (its verify would refuse the age).
  const standard = request.headers as Record<string, string>
  t.match(standard['webhook-id'], /^dlv_\d+$/)
  t.equal(standard['webhook-timestamp'], String(Math.floor(clock() / 1000)))
  const at = new Date(Number(standard['webhook-timestamp']) * 1000)
  t.equal(standard['webhook-signature'], new Webhook(first.signingSecret).sign(standard['webhook-id'], at, request.body))
})

/** A reward pushed to Klaviyo, refused once with a 503, then accepted on its retry 6 s later. */
async function retriedPush (t: Test) {
  const tenant = await makeTenant(app)
  const klaviyo = await providerServer(t, [503, 202])
  await put(tenant, 'klaviyo', { apiKey: 'pk_retry', baseUrl: klaviyo.url })
  await reward(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverUntil(worker, klaviyo.received, 1)
  clock.advance(6_000)
  await deliverUntil(worker, klaviyo.received, 2)
  return { tenant, klaviyo }
}

t.test('a failed push is retried through the outbox and both attempts are in the delivery log', async (t) => {
  const { tenant, klaviyo } = await retriedPush(t)
  t.equal(klaviyo.received.length, 2)
  const log = (await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo/deliveries', key: tenant.key, store: tenant.storeId }))
    .json()
  t.match(log.data, [{ status: 'succeeded', attempt: 2, responseCode: 202 }, { status: 'retrying', attempt: 1, responseCode: 503 }])
})

t.test('the delivery log with updatedSince lists the attempts made at or after it', async (t) => {
  const { tenant } = await retriedPush(t)
  const log = async (query: string) =>
    (await call(app, { method: 'GET', url: `/v1/email/providers/klaviyo/deliveries${query}`, key: tenant.key, store: tenant.storeId }))
      .json()
  const [second, first] = (await log('')).data
  t.ok(Date.parse(second.at) > Date.parse(first.at))
  t.match((await log(`?updatedSince=${second.at}`)), { data: [{ attempt: 2 }], meta: { total: 1 } })
  t.equal((await log(`?updatedSince=${first.at}`)).meta.total, 2)
  t.equal((await log('?updatedSince=soon')).code, 'invalid_request')
})

t.test('an event without a customer email fails in the log without a request; other events are not pushed', async (t) => {
  const tenant = await makeTenant(app)
  const klaviyo = await providerServer(t)
  await put(tenant, 'klaviyo', { apiKey: 'pk_x', baseUrl: klaviyo.url })
  await reward(app, tenant, 'loyalty.referral_reward', { points: 1 })
  await app.db.transaction((trx) =>
    app.services.events.append(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, type: 'review.created', data: {} })
  )
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(klaviyo.received.length, 0)
  const log = (await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo/deliveries', key: tenant.key, store: tenant.storeId }))
    .json()
  t.match(log.data, [{ status: 'retrying', error: /no customer email/ }])
})

t.test('provider input at the edges is a 400, and another store sees none of it', async (t) => {
  const tenant = await makeTenant(app)
  const cases: Array<[string, object]> = [
    ['klaviyo', {}],
    ['mailchimp', { apiKey: 'abc-us21' }],
    ['mailchimp', { apiKey: 'nodc', listId: 'l1' }],
    ['webhook', {}],
    ['webhook', { baseUrl: 'javascript:alert(1)' }],
    ['klaviyo', { apiKey: 'k', events: ['nope.event'] }],
    ['klaviyo', { apiKey: 'k'.repeat(201) }],
    ['klaviyo', { apiKey: 'k', events: [] }],
    ['sendgrid', { apiKey: 'k' }]
  ]
  for (const [provider, payload] of cases) {
    t.equal((await put(tenant, provider, payload)).statusCode, 400, `${provider} ${JSON.stringify(payload).slice(0, 50)}`)
    clock.advance(1_000) // the clock is manual: keep under the per-second request limit
  }
  t.equal((await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo', key: tenant.key, store: tenant.storeId })).statusCode, 404)
  const mine = await put(tenant, 'klaviyo', { apiKey: 'pk_mine' })
  t.equal(mine.statusCode, 200, mine.body)
  const other = await makeTenant(app)
  t.equal((await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo', key: other.key, store: other.storeId })).statusCode, 404)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo', key: tenant.key, store: tenant.storeId })).json().baseUrl,
    'https://a.klaviyo.com'
  )
})

t.test('a removed provider gets no more events, forgets its key, and can be set up afresh', async (t) => {
  const tenant = await makeTenant(app)
  const klaviyo = await providerServer(t)
  await put(tenant, 'klaviyo', { apiKey: 'pk_gone_9876', baseUrl: klaviyo.url })
  const res = await call(app, { method: 'DELETE', url: '/v1/email/providers/klaviyo', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 204)
  t.equal((await call(app, { method: 'GET', url: '/v1/email/providers/klaviyo', key: tenant.key, store: tenant.storeId })).statusCode, 404)
  await reward(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(klaviyo.received.length, 0)
  const row = await app.db('webhook_subscriptions').where({ store_env_id: tenant.storeId, kind: 'provider' }).first()
  t.equal(row.status, 'retired')
  t.notMatch(decrypt(row.secret_sealed, app.config.secretKey), 'pk_gone_9876', 'the key is not kept')
  const again = await put(tenant, 'klaviyo', { baseUrl: klaviyo.url })
  t.equal(again.statusCode, 400, 'the old key is not reused')
})
