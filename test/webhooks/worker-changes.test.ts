import t from 'tap'
import { build, eventsOf, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, deliverUntil, failedForThreeDays, receiver, testWorker } from './support.js'

/** A webhook's status changed by the delivery worker appends its event, as a change through the API does. */

t.test('a webhook the worker disables after its last retry appends outbound_webhook.updated, without its secret', async (t) => {
  const { app, tenant, hook } = await failedForThreeDays(t)
  const changes = await eventsOf(app, tenant.storeId, 'outbound_webhook.updated')
  t.match(changes.map((e) => e.data), [{ id: hook.id, status: 'disabled', statusReason: /after 10 failed attempts/ }])
  t.notOk(changes[0].raw.includes(hook.secret), 'no secret')
})

t.test('a webhook whose receiver answers 410 appends outbound_webhook.deleted, and the other webhooks are sent it', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const other = await receiver(t, () => 204)
  await createWebhook(app, tenant, other.url)
  const rx = await receiver(t, () => 410)
  const gone = await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.match((await eventsOf(app, tenant.storeId, 'outbound_webhook.deleted')).map((e) => e.data), [{ id: gone.id, status: 'retired' }])
  await deliverUntil(testWorker(t, app, [tenant.storeId]), other.received, 3)
  t.ok(
    other.bodies().some((b) => b.type === 'outbound_webhook.deleted' && (b.data as { id: string }).id === gone.id),
    'sent to the kept one'
  )
})
