import t from 'tap'
import { App, append, appTester } from './harness.js'
import { connectZapier } from './oauth-harness.js'
import { makeTenant } from '../../../test/factories.js'

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

t.test('the trigger samples are the API catalogue\'s samples', async (t) => {
  const { app, tenant } = await connectZapier(t)
  const catalogue = (await app.inject({ url: '/v1/connectors/triggers', headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId } })).json()
  const sampleOf = (key: string) => catalogue.find((trigger: { key: string }) => trigger.key === key).sample
  for (const key of ['new_review', 'new_review_instant']) t.same(App.triggers[key].operation.sample, sampleOf('review.created'), key)
  for (const key of ['new_order', 'new_order_instant']) t.same(App.triggers[key].operation.sample, sampleOf('order.upserted'), key)
})

t.test('the app definition is valid for the Zapier platform', async (t) => {
  const { createRequire } = await import('node:module')
  const schemaTools = createRequire(import.meta.url)('zapier-platform-core/src/tools/schema')
  t.same(schemaTools.validateApp(schemaTools.prepareApp(App)), [])
})
