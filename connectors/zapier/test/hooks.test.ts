import t from 'tap'
import { createHmac } from 'node:crypto'
import { App, append, appTester, zapierBundle } from './harness.js'
import { connectZapier } from './oauth-harness.js'
import { deliverUntil, receiver, testWorker } from '../../../test/webhooks/support.js'

t.test('turning a Zap on subscribes a hook; a delivery becomes one item with the polled id; turning it off unsubscribes', async (t) => {
  const { app, tenant, authData } = await connectZapier(t)
  const rx = await receiver(t)
  const trigger = App.triggers.new_review_instant.operation
  const hook = await appTester(trigger.performSubscribe, { authData, targetUrl: rx.url })
  t.match(hook, { id: /^hook_/, event: 'review.created', targetUrl: rx.url, secret: /^whsec_/ })

  const event = await append(app, tenant, 'review.created', { id: 'rev_1', rating: 5, authorName: 'Maya R.' })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 1)
  const delivered = await appTester(trigger.perform, zapierBundle(rx.received[0] as never, authData, hook))
  t.equal(delivered.length, 1)
  t.match(delivered[0], { id: event.id, type: 'review.created', reviewId: 'rev_1', rating: 5 })
  const listed = await appTester(trigger.performList, { authData })
  t.same(listed[0], delivered[0], 'performList (polling) gives the same item, so Zapier de-duplicates across both')

  await appTester(trigger.performUnsubscribe, { authData, subscribeData: hook })
  const gone = await app.inject({
    url: `/v1/connectors/hooks/${hook.id}`,
    headers: { authorization: `Bearer ${authData.access_token}`, 'x-store-env-id': tenant.storeId }
  })
  t.equal(gone.statusCode, 404)
  await t.resolves(appTester(trigger.performUnsubscribe, { authData, subscribeData: hook }), 'a retried unsubscribe succeeds')
})

t.test('a delivery that is not signed with the hook\'s secret starts nothing', async (t) => {
  const { delivery, hook, authData, trigger } = await receivedDelivery(t)
  const forged = { ...delivery, body: delivery.body.replace('1001', '9999') }
  t.same(await appTester(trigger.perform, zapierBundle(forged, authData, hook)), [])
  t.same(await appTester(trigger.perform, zapierBundle(delivery, authData, { ...hook, secret: 'whsec_other' })), [])
  t.equal((await appTester(trigger.perform, zapierBundle(delivery, authData, hook))).length, 1)
})

/** A delivery as the service would have signed it at `unix` seconds: its body, and a v2 header for that time. */
function signedAt (delivery: { headers: Record<string, unknown>, body: string }, secret: string, unix: number) {
  const v1 = createHmac('sha256', secret).update(`${unix}.${delivery.body}`).digest('hex')
  return { ...delivery, headers: { ...delivery.headers, 'x-service-signature-v2': `t=${unix},v1=${v1}` } }
}

/** A delivery the hook received, with the trigger and the hook that check it. */
async function receivedDelivery (t: Parameters<typeof connectZapier>[0]) {
  const { app, tenant, authData } = await connectZapier(t)
  const rx = await receiver(t)
  const trigger = App.triggers.new_order_instant.operation
  const hook = await appTester(trigger.performSubscribe, { authData, targetUrl: rx.url })
  await append(app, tenant, 'order.upserted', { platformOrderId: '1001' })
  await testWorker(t, app, [tenant.storeId]).runOnce()
  const delivery = rx.received[0] as never as { headers: Record<string, unknown>, body: string }
  const startsAt = async (unix: number) =>
    (await appTester(trigger.perform, zapierBundle(signedAt(delivery, hook.secret, unix), authData, hook))).length
  return { delivery, hook, authData, trigger, startsAt, now: Math.floor(Date.now() / 1000) }
}

t.test('a captured delivery replayed more than 300 seconds after it was signed starts nothing', async (t) => {
  const { startsAt, now } = await receivedDelivery(t)
  t.equal(await startsAt(now - 240), 1, 'signed four minutes ago: still verifies')
  t.equal(await startsAt(now - 360), 0, 'signed six minutes ago: refused')
  t.equal(await startsAt(now - 86_400), 0, 'signed a day ago: refused')
})

t.test('a delivery signed more than 300 seconds ahead of the receiver\'s clock starts nothing', async (t) => {
  const { startsAt, now } = await receivedDelivery(t)
  t.equal(await startsAt(now + 240), 1, 'four minutes ahead: still verifies')
  t.equal(await startsAt(now + 360), 0, 'six minutes ahead: refused')
})
