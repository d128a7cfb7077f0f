/**
 * Deliveries verified as a Standard Webhooks receiver would: with the `standardwebhooks` library (not our own code),
 * against a real HTTP receiver. The library checks timestamps against the real time, so these clocks start now.
 */
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, deliverUntil, receiver, testWorker, type Received } from './support.js'

const headersOf = (r: Received) => r.headers as Record<string, string>

t.test('an outbound webhook delivery verifies with the standardwebhooks library; a tampered body does not', async (t) => {
  const clock = manualClock(Date.now())
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant, 'loyalty.referral_reward', { points: 50 })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
  const [delivery] = rx.received
  const headers = headersOf(delivery)

  const verified = new Webhook(hook.secret).verify(delivery.body, headers)
  t.match(verified, { id: event.id, type: 'loyalty.referral_reward', data: { points: 50 } }, 'the library answers the parsed body')
  t.equal(headers['webhook-id'], headers['x-service-delivery-id'], 'webhook-id is the delivery id')
  t.match(headers['webhook-id'], /^dlv_\d+$/)
  t.equal(headers['webhook-timestamp'], String(Math.floor(clock() / 1000)), 'unix seconds of the attempt')
  t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/)
  t.match(headers['x-service-signature-v2'], /^t=\d+,v1=[0-9a-f]{64}$/, 'our own header is still sent beside them')

  const tampered = delivery.body.replace('"points":50', '"points":5000')
  t.not(tampered, delivery.body)
  t.throws(() => new Webhook(hook.secret).verify(tampered, headers), { message: 'No matching signature found' })
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(delivery.body, headers), {
    message: 'No matching signature found'
  }, 'nor with another secret')
  const otherId = { ...headers, 'webhook-id': `${headers['webhook-id']}0` }
  t.throws(() => new Webhook(hook.secret).verify(delivery.body, otherId), { message: 'No matching signature found' }, 'the id is signed')
})

t.test('a delivery signed more than five minutes ago is refused by the library as too old', async (t) => {
  const clock = manualClock(Date.now() - 6 * 60_000)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
  const [delivery] = rx.received
  t.throws(() => new Webhook(hook.secret).verify(delivery.body, headersOf(delivery)), { message: 'Message timestamp too old' })
  const key = new Webhook(hook.secret)
  const ts = new Date(Number(headersOf(delivery)['webhook-timestamp']) * 1000)
  t.equal(
    key.sign(headersOf(delivery)['webhook-id'], ts, delivery.body),
    headersOf(delivery)['webhook-signature'],
    'only its age fails it: the signature itself is the one the library computes'
  )
})

t.test('a retried delivery keeps its webhook-id and is signed again at the retry\'s timestamp', async (t) => {
  const clock = manualClock(Date.now())
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t, (_req, n) => n === 1 ? 503 : 200)
  const hook = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverUntil(worker, rx.received, 1)
  clock.advance(6_000)
  await deliverUntil(worker, rx.received, 2)
  t.equal(rx.received.length, 2, 'the first attempt failed, the retry was sent')
  const [first, retry] = rx.received.map(headersOf)
  t.equal(retry['webhook-id'], first['webhook-id'], 'the same webhook-id on the retry')
  t.equal(Number(retry['webhook-timestamp']) - Number(first['webhook-timestamp']), 6, 'each attempt has its own timestamp')
  t.not(retry['webhook-signature'], first['webhook-signature'])
  for (const r of rx.received) t.ok(new Webhook(hook.secret).verify(r.body, headersOf(r)), 'both attempts verify')

  await appendEvent(app, tenant)
  await deliverUntil(worker, rx.received, 3)
  t.not(headersOf(rx.received[2])['webhook-id'], first['webhook-id'], 'another delivery, another webhook-id')
})

t.test('a connector REST hook delivery verifies with the standardwebhooks library too', async (t) => {
  const app = await build(t, { clock: manualClock(Date.now()) })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })
  t.equal(res.statusCode, 201)
  const hook = res.json() as { secret: string }
  const event = await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
  const [delivery] = rx.received
  t.match(new Webhook(hook.secret).verify(delivery.body, headersOf(delivery)), { id: event.id, reviewId: 'rev_1' })
  t.equal(headersOf(delivery)['webhook-id'], headersOf(delivery)['x-service-delivery-id'])
  t.throws(() => new Webhook(hook.secret).verify(delivery.body.replace('rev_1', 'rev_2'), headersOf(delivery)), {
    message: 'No matching signature found'
  })
})

t.test('a webhook secret is whsec_ and canonical base64 of 24 bytes, the key the Standard Webhooks scheme decodes', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  for (let i = 0; i < 3; i++) {
    const { secret } = await createWebhook(app, tenant, rx.url)
    const suffix = secret.slice('whsec_'.length)
    const key = Buffer.from(suffix, 'base64')
    t.equal(key.length, 24)
    if (key.toString('base64') !== suffix) t.fail(`not canonical base64: ${secret.slice(0, 9)}…`)
  }
})
