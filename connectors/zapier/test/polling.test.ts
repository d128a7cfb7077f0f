import t from 'tap'
import { App, append, appTester } from './harness.js'
import { connectZapier } from './oauth-harness.js'
import { makeTenant } from '../../../test/factories.js'
import { sharedApp } from '../../../test/helper.js'

t.test('the New Review trigger returns new reviews newest first, identified by event id', async (t) => {
  const { app, tenant, authData } = await connectZapier(t)
  const first = await append(app, tenant, 'review.created', { id: 'rev_first', rating: 4, title: 'Good' })
  await append(app, tenant, 'order.upserted', { platformOrderId: '1001' })
  const second = await append(app, tenant, 'review.created', { id: 'rev_second', rating: 5, title: 'Great' })
  const items = await appTester(App.triggers.new_review.operation.perform, { authData })
  t.same(items.map((item: { id: string }) => item.id), [second.id, first.id])
  t.match(items[0], { reviewId: 'rev_second', rating: 5, type: 'review.created' })
  const again = await appTester(App.triggers.new_review.operation.perform, { authData })
  t.same(again, items, 'a second poll gives the same ids, so Zapier starts nothing twice')
})

t.test('the New Order trigger returns order events of the connection\'s store only', async (t) => {
  const { app, tenant, authData } = await connectZapier(t)
  const other = await makeTenant(app)
  const own = await append(app, tenant, 'order.upserted', { platformOrderId: '1001', total: 25 })
  await append(app, other, 'order.upserted', { platformOrderId: '9009' })
  const items = await appTester(App.triggers.new_order.operation.perform, { authData })
  t.same(items.map((item: { id: string }) => item.id), [own.id])
  t.equal(items[0].platformOrderId, '1001')
})

t.test('a connection granted orders:read only can poll orders but gets insufficient_scope from New Review', async (t) => {
  const { app, tenant, authData } = await connectZapier(t, { scope: 'orders:read offline_access' })
  await append(app, tenant, 'order.upserted', { platformOrderId: '1001' })
  t.equal((await appTester(App.triggers.new_order.operation.perform, { authData })).length, 1)
  await t.rejects(appTester(App.triggers.new_review.operation.perform, { authData }), { message: /insufficient_scope/ })
})

interface Offered { key: string, operation: { type: string, sample: { type: string } } }

t.test('every trigger of the API\'s catalogue is offered as a polling and an instant trigger with the catalogue\'s sample', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const catalogue = (await app.inject({
    url: '/v1/connectors/triggers',
    headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
  })).json()
  const offered = Object.values(App.triggers) as Offered[]
  for (const { key, sample } of catalogue as Array<{ key: string, sample: unknown }>) {
    const mine = offered.filter((trigger) => trigger.operation.sample.type === key)
    t.same(mine.map((trigger) => trigger.operation.type).sort(), ['hook', 'polling'], `${key}: a polling and an instant trigger`)
    for (const trigger of mine) t.same(trigger.operation.sample, sample, `${trigger.key} has the catalogue's sample`)
  }
  t.equal(offered.length, 2 * catalogue.length, 'and no trigger for an event type the catalogue does not offer')
})

t.test('the app definition is valid for the Zapier platform', async (t) => {
  const { createRequire } = await import('node:module')
  const schemaTools = createRequire(import.meta.url)('zapier-platform-core/src/tools/schema')
  t.same(schemaTools.validateApp(schemaTools.prepareApp(App)), [])
})

t.test('every trigger has a description that starts "Triggers when", as Zapier\'s publishing review asks, and a sample with an id', async (t) => {
  for (const trigger of Object.values(App.triggers) as Array<Offered & { display: { description: string } }>) {
    t.match(trigger.display.description, /^Triggers when \S.{10,}\.$/, trigger.key)
    t.match(trigger.operation.sample, { id: /^evt_/ }, trigger.key)
  }
})

/** Whether an item has the field at Zapier's `a__b` key; a null on the way (a review without a reply) counts as having it. */
function hasField (item: unknown, key: string): boolean {
  let value = item
  for (const part of key.split('__')) {
    if (value === null) return true
    if (typeof value !== 'object' || !(part in value)) return false
    value = (value as Record<string, unknown>)[part]
  }
  return true
}

t.test('every output field of a trigger names a field its sample has, nested ones by Zapier\'s a__b keys', async (t) => {
  for (const trigger of Object.values(App.triggers) as Array<Offered & { operation: { outputFields: Array<{ key: string }> } }>) {
    const missing = trigger.operation.outputFields.map((field) => field.key).filter((key) => !hasField(trigger.operation.sample, key))
    t.same(missing, [], trigger.key)
  }
})
