import t from 'tap'
import { App, append, appTester, serve } from './harness.js'
import { makeKey, makeTenant } from '../../../test/factories.js'

t.test('the New Review trigger returns new reviews newest first, identified by event id', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const first = await append(app, tenant, 'review.created', { id: 'rev_first', rating: 4, title: 'Good' })
  await append(app, tenant, 'order.upserted', { platformOrderId: '1001' })
  const second = await append(app, tenant, 'review.created', { id: 'rev_second', rating: 5, title: 'Great' })
  const items = await appTester(App.triggers.new_review.operation.perform, { authData: { api_key: tenant.key, store_env_id: tenant.storeId } })
  t.same(items.map((item: { id: string }) => item.id), [second.id, first.id])
  t.match(items[0], { reviewId: 'rev_second', rating: 5, type: 'review.created' })
})

t.test('the New Order trigger returns order events of the connection\'s store only', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const own = await append(app, tenant, 'order.upserted', { platformOrderId: '1001', total: 25 })
  await append(app, other, 'order.upserted', { platformOrderId: '9009' })
  const items = await appTester(App.triggers.new_order.operation.perform, { authData: { api_key: tenant.key, store_env_id: tenant.storeId } })
  t.same(items.map((item: { id: string }) => item.id), [own.id])
  t.equal(items[0].platformOrderId, '1001')
})

t.test('a connection scoped to orders:read gets the API\'s insufficient_scope error from New Review', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', ['orders:read'])
  const bundle = { authData: { api_key: key.secret, store_env_id: tenant.storeId } }
  t.same(await appTester(App.triggers.new_order.operation.perform, bundle), [])
  await t.rejects(appTester(App.triggers.new_review.operation.perform, bundle), { message: /insufficient_scope/ })
})

t.test('the trigger samples are the API catalogue\'s samples', async (t) => {
  const { app } = await serve(t)
  const tenant = await makeTenant(app)
  const catalogue = (await app.inject({ url: '/v1/connectors/triggers', headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId } })).json()
  const sampleOf = (key: string) => catalogue.find((trigger: { key: string }) => trigger.key === key).sample
  t.same(App.triggers.new_review.operation.sample, sampleOf('review.created'))
  t.same(App.triggers.new_order.operation.sample, sampleOf('order.upserted'))
})
