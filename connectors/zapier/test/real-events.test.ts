import { createRequire } from 'node:module'
import t from 'tap'
import { App, appTester, zapierBundle } from './harness.js'
import { connectZapier } from './oauth-harness.js'
import { receiver, testWorker } from '../../../test/webhooks/support.js'
import { eventsMade, shapeDiff, WRITERS } from '../../../test/connectors/trigger-events.js'

interface Definition { key: string, eventType: string, label: string }
const { DEFINITIONS } = createRequire(import.meta.url)('../triggers/index.js') as { DEFINITIONS: Definition[] }

type Item = Record<string, unknown> & { id: string }
const byId = (items: Item[]) => [...items].sort((a, b) => a.id.localeCompare(b.id))

/**
 * Each of the app's triggers against the running service, over HTTP with the app's own OAuth connection: the event
 * is made the way a store makes it (test/connectors/trigger-events.ts), the polling trigger returns it in the shape
 * of its sample, and the instant trigger, subscribed beforehand, receives it as the same item.
 */
for (const { key, eventType, label } of DEFINITIONS) {
  t.test(`${label} and ${label} (Instant) both receive a real ${eventType} event, as the same item in the sample's shape`, async (t) => {
    const { app, tenant, authData } = await connectZapier(t)
    const rx = await receiver(t)
    const polling = App.triggers[key].operation
    const instant = App.triggers[`${key}_instant`].operation
    const hook = await appTester(instant.performSubscribe, { authData, targetUrl: rx.url })
    t.match(hook, { id: /^hook_/, event: eventType, secret: /^whsec_/ })

    const expected = await WRITERS[eventType](app, tenant)
    const items: Item[] = await appTester(polling.perform, { authData })
    t.equal(items.length, eventsMade(eventType), `${eventsMade(eventType)} item(s)`)
    for (const item of items) {
      t.match(item, { id: /^evt_/, type: eventType, ...expected })
      t.same(shapeDiff(item, polling.sample), [], 'the item has the structure of the trigger\'s sample')
    }

    // A generous attempt timeout: on a loaded machine a 2 s attempt can time out and be retried only later.
    await testWorker(t, app, [tenant.storeId], { timeoutMs: 10_000 }).runOnce()
    await Promise.race([rx.waitFor(items.length), new Promise((resolve) => setTimeout(resolve, 5_000))])
    t.equal(rx.received.length, items.length, 'one delivery per event')
    const delivered = (await Promise.all(rx.received.map((delivery) =>
      appTester(instant.perform, zapierBundle(delivery as never, authData, hook))
    ))).flat()
    t.same(byId(delivered), byId(items), 'the deliveries are the polled items')
    t.same(await appTester(instant.performList, { authData }), items, 'performList polls the same event type')

    await appTester(instant.performUnsubscribe, { authData, subscribeData: hook })
    const gone = await app.inject({
      url: `/v1/connectors/hooks/${hook.id}`,
      headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
    })
    t.equal(gone.statusCode, 404, 'turning the Zap off removed the hook')
  })
}
