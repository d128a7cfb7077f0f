import t from 'tap'
import { createHmac } from 'node:crypto'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, deliverUntil, failedForThreeDays, receiver, testWorker } from './support.js'

const SUNSET = Date.parse('2027-01-15T00:00:00Z')

function hmac (secret: string, payload: string) {
  return createHmac('sha256', secret).update(payload).digest('hex')
}

t.test('a delivery is signed with HMAC-SHA256 over "t.body" keyed with the whsec_ secret string', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock, logger: { level: 'error' } })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant, 'loyalty.referral_reward', { points: 50 })
  await testWorker(t, app, [tenant.storeId]).runOnce()

  t.equal(rx.received.length, 1)
  const { headers, body } = rx.received[0]
  const ts = Math.floor(clock() / 1000)
  t.equal(headers['x-service-signature-v2'], `t=${ts},v1=${hmac(hook.secret, `${ts}.${body}`)}`)
  t.equal(headers['x-service-event-id'], event.id)
  t.equal(headers['x-service-event-type'], 'loyalty.referral_reward')
  t.same(JSON.parse(body), {
    id: event.id,
    type: 'loyalty.referral_reward',
    createdAt: event.createdAt,
    storeEnvId: tenant.storeId,
    data: { points: 50 }
  })
})

t.test('before the sunset both signature headers and the deprecation headers are sent', async (t) => {
  const clock = manualClock(SUNSET - 1)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()

  const { headers, body } = rx.received[0]
  t.ok(headers['x-service-signature-v2'])
  t.equal(headers['x-service-signature'], hmac(hook.secret, body), 'the deprecated header signs the body alone')
  t.equal(headers.sunset, 'Fri, 15 Jan 2027 00:00:00 GMT')
  t.equal(headers.deprecation, 'Thu, 15 Oct 2026 00:00:00 GMT')
  t.match(headers.link, /^<http:\/\/127\.0\.0\.1:3000\/docs\/versioning>; rel="deprecation"$/)
})

t.test('from 2027-01-15T00:00:00Z only the v2 signature header is sent', async (t) => {
  const clock = manualClock(SUNSET)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()

  const { headers, body } = rx.received[0]
  const ts = Math.floor(SUNSET / 1000)
  t.equal(headers['x-service-signature-v2'], `t=${ts},v1=${hmac(hook.secret, `${ts}.${body}`)}`)
  t.notOk(headers['x-service-signature'])
  t.notOk(headers.deprecation)
  t.notOk(headers.sunset)
})

t.test('a receiver that is down gets everything once it is back, each event once', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  let up = false
  const rx = await receiver(t, () => up ? 200 : 503)
  await createWebhook(app, tenant, rx.url)
  const events = []
  for (let i = 0; i < 5; i++) events.push(await appendEvent(app, tenant, 'loyalty.birthday_reward', { n: i }))
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverUntil(worker, rx.received, 5)
  t.equal(rx.received.length, 5, 'each attempted once while down')
  t.equal(await worker.runOnce(), 0, 'nothing is due again before the first retry (about 5 s)')

  up = true
  clock.advance(6_000)
  await worker.runOnce()
  const delivered = rx.received.slice(5).map((r) => JSON.parse(r.body).id).sort()
  t.same(delivered, events.map((e) => e.id).sort(), 'every event delivered once after recovery')
  clock.advance(3 * 86_400_000)
  t.equal(await worker.runOnce(), 0, 'nothing is sent again')
})

t.test('the delivery log shows each attempt with status, response code, duration and next retry', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  let status = 500
  const rx = await receiver(t, () => status)
  const hook = await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId])
  await worker.runOnce()
  status = 204
  clock.advance(10_000)
  await worker.runOnce()

  const res = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}/deliveries`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  const [second, first] = res.json().data
  t.match(first, {
    eventId: event.id,
    eventType: 'loyalty.birthday_reward',
    attempt: 1,
    status: 'retrying',
    responseCode: 500,
    error: 'HTTP 500'
  })
  const retryIn = Date.parse(first.nextRetryAt) - Date.parse(first.at)
  t.ok(retryIn >= 4_500 && retryIn <= 5_500, `first retry after about 5 s (${retryIn} ms)`)
  t.match(second, { attempt: 2, status: 'succeeded', responseCode: 204, nextRetryAt: null, error: null })
  t.type(second.durationMs, 'number')
})

t.test('only a 2xx answer is a success: a redirect (not followed) and a 4xx other than 410 are failed attempts, retried', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const answers = [300, 302, 400, 404]
  // Each event names the answer it gets, whatever order its delivery arrives in.
  const rx = await receiver(t, (req) => JSON.parse(req.body).data.answer)
  rx.server.on('request', (_req, res) => res.setHeader('location', `${rx.url}/moved`))
  const hook = await createWebhook(app, tenant, rx.url)
  for (const answer of answers) await appendEvent(app, tenant, 'loyalty.birthday_reward', { answer })
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverUntil(worker, rx.received, answers.length)
  const log = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}/deliveries`, key: tenant.key, store: tenant.storeId })
  const attempts = log.json().data.map((a: { responseCode: number, status: string, error: string }) => [a.responseCode, a.status, a.error])
  t.same(attempts.sort(), answers.map((code) => [code, 'retrying', `HTTP ${code}`]))
  t.same(rx.received.map((r) => r.url), answers.map(() => '/hook'), 'no redirect was followed')
  t.match((await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })).json(), {
    status: 'active'
  })
  clock.advance(6_000)
  await deliverUntil(worker, rx.received, 2 * answers.length)
  t.equal(rx.received.length, 2 * answers.length, 'each is tried again')
})

t.test('a 410 answer retires the webhook and nothing more is sent to it', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t, () => 410)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  const got = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.match(got.json(), { status: 'retired', statusReason: /410/ })
  await appendEvent(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
})

t.test('a 410 answer cancels the webhook\'s deliveries still waiting, and only those', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const other = await receiver(t, () => 204)
  // Registered first: a webhook is sent the registrations of those after it (outbound_webhook.created), not its own.
  const kept = await createWebhook(app, tenant, other.url)
  const rx = await receiver(t, () => 410)
  const hook = await createWebhook(app, tenant, rx.url)
  for (let i = 0; i < 3; i++) await appendEvent(app, tenant)
  // One delivery a claim: the first answer (410) comes while the other two still wait in the outbox.
  await deliverUntil(testWorker(t, app, [tenant.storeId], { batchSize: 1 }), rx.received, 1)
  const statuses = async (id: string) =>
    (await app.db('webhook_deliveries').where({ subscription_id: id }).orderBy('id').pluck('status')) as string[]
  const retired = await statuses(hook.id)
  t.equal(retired.filter((s) => s === 'failed').length, 1, retired.join(', '))
  t.equal(retired.filter((s) => s === 'cancelled').length, 2, retired.join(', '))
  t.notOk((await statuses(kept.id)).includes('cancelled'), 'the other webhook\'s deliveries are untouched')
  t.equal(rx.received.length, 1)
})

t.test('a receiver slower than the timeout fails the attempt and is retried later', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  let release = () => {}
  const held = new Promise<number>((resolve) => { release = () => resolve(200) })
  t.teardown(() => release())
  const rx = await receiver(t, (_req, n) => n === 1 ? held : 200)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId], { timeoutMs: 300 })
  await worker.runOnce()
  const log = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}/deliveries`, key: tenant.key, store: tenant.storeId })
  t.match(log.json().data[0], { status: 'retrying', responseCode: null, error: 'No answer within 0.3 s' })
  clock.advance(6_000)
  await deliverUntil(worker, rx.received, 2)
  t.equal(rx.received.length, 2, 'retried')
})

t.test('a receiver failing for three days is disabled and the owner sees why', async (t) => {
  const { app, tenant, rx, hook, worker } = await failedForThreeDays(t)
  t.equal(rx.received.length, 10, 'the first attempt and nine retries')
  const got = (await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })).json()
  t.match(got, { status: 'disabled', statusReason: /after 10 failed attempts.*HTTP 500/, consecutiveFailures: 10 })
  await appendEvent(app, tenant)
  await worker.runOnce()
  t.equal(rx.received.length, 10, 'a disabled webhook gets no new events')
})

t.test('retired webhooks receive nothing, even for events already in the outbox', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  const del = await call(app, { method: 'DELETE', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(del.statusCode, 204)
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.equal(rx.received.length, 0)
})

t.test('a webhook receives only the event types it subscribed to', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url, ['loyalty.referral_reward'])
  await appendEvent(app, tenant, 'loyalty.birthday_reward')
  const wanted = await appendEvent(app, tenant, 'loyalty.referral_reward')
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.same(rx.bodies().map((b) => b.id), [wanted.id])
})
