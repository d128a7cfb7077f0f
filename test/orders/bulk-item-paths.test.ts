import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

const putOrders = async (orders: unknown[]) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  return call(app, { method: 'PUT', url: '/v1/orders', key: tenant.key, store: tenant.storeId, payload: { orders } })
}

t.test('a field missing inside a line item is named by its full path in the item\'s error', async (t) => {
  const res = await putOrders([{ platformOrderId: 'o-1', lineItems: [{ quantity: 1 }] }])
  t.same(res.json().errors, [{
    index: 0,
    platformId: 'o-1',
    code: 'invalid_item',
    message: 'lineItems.0.platformProductId: must have required property \'platformProductId\''
  }])
})

t.test('an unknown field inside a line item is named by its full path in the item\'s error', async (t) => {
  const res = await putOrders([{ platformOrderId: 'o-2', lineItems: [{ platformProductId: 'sku', quantity: 1, colour: 'red' }] }])
  t.same(res.json().errors, [{
    index: 0,
    platformId: 'o-2',
    code: 'invalid_item',
    message: 'lineItems.0.colour: must NOT have additional properties'
  }])
})
