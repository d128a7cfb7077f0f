import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

const put = (app: FastifyInstance, tenant: Tenant, resource: 'products' | 'orders', items: unknown[]) =>
  call(app, { method: 'PUT', url: `/v1/${resource}`, key: tenant.key, store: tenant.storeId, payload: { [resource]: items } })
const get = (app: FastifyInstance, tenant: Tenant, resource: 'products' | 'orders', id: string) =>
  call(app, { method: 'GET', url: `/v1/${resource}/${encodeURIComponent(id)}`, key: tenant.key, store: tenant.storeId })

const VARIANTS = ['Dup-X', 'dup-x', 'Dup-X ', 'DUP-X']

t.test('product ids differing only in case or trailing spaces are distinct products', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, 'products', VARIANTS.map((id, i) => ({ platformProductId: id, title: `title ${i}` })))
  t.same(res.json(), { received: 4, upserted: 4, failed: 0, errors: [] })
  for (const [i, id] of VARIANTS.entries()) t.equal((await get(app, tenant, 'products', id)).json().title, `title ${i}`, JSON.stringify(id))
  const list = (await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })).json()
  t.equal(list.meta.total, 4)
  t.equal((await get(app, tenant, 'products', 'Dup-X  ')).statusCode, 404, 'two trailing spaces is another id, unknown')
})

t.test('order ids differing only in case or trailing spaces are distinct orders', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, 'orders', VARIANTS.map((id, i) => ({ platformOrderId: id, customerName: `name ${i}` })))
  t.same(res.json(), { received: 4, upserted: 4, failed: 0, errors: [] })
  for (const [i, id] of VARIANTS.entries()) {
    t.equal((await get(app, tenant, 'orders', id)).json().customerName, `name ${i}`, JSON.stringify(id))
  }
})

t.test('line items naming product ids that differ only in case stay distinct', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, 'products', [{ platformProductId: 'mug', excludedFromReviewRequests: true }, { platformProductId: 'MUG' }])
  await put(app, tenant, 'orders', [{
    platformOrderId: 'o',
    customerEmail: 'ann@example.test',
    fulfilledAt: '2026-11-01T00:00:00Z',
    lineItems: [{ platformProductId: 'MUG', quantity: 1 }]
  }])
  t.equal((await get(app, tenant, 'orders', 'o')).json().reviewRequest.state, 'scheduled', 'MUG is not the excluded mug')
})

t.test('every product id PUT accepts, up to 191 characters, is served by its GET', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const ids = [101, 150, 191].map((n) => `${n}-`.padEnd(n, 'x')).concat(['😀'.repeat(191), '\u0001'.repeat(191), 'a/b?c#d%20e'])
  const res = await put(app, tenant, 'products', ids.map((id) => ({ platformProductId: id })))
  t.same(res.json(), { received: ids.length, upserted: ids.length, failed: 0, errors: [] })
  for (const id of ids) {
    const got = await get(app, tenant, 'products', id)
    t.equal(got.statusCode, 200, `${[...id].length} characters`)
    t.equal(got.json().platformProductId, id)
  }
})

t.test('a product id of 192 characters is refused alike by PUT and GET', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const id of ['x'.repeat(192), '😀'.repeat(192)]) {
    const res = await put(app, tenant, 'products', [{ platformProductId: id }, { platformProductId: 'neighbour' }])
    t.match(res.json(), { upserted: 1, failed: 1, errors: [{ index: 0, code: 'invalid_item' }] })
    const got = await get(app, tenant, 'products', id)
    t.equal(got.statusCode, 400)
    t.equal(got.json().code, 'invalid_request')
  }
})

t.test('a platform id with a lone surrogate is a per-item error, not silently merged with another id', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const payload =
    '{"products":[{"platformProductId":"a\\ud800"},{"platformProductId":"a\\udc00"},{"platformProductId":"ok","title":"x\\ud83d"}, {"platformProductId":"fine \\ud83d\\ude00"}]}'
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload,
    headers: { 'content-type': 'application/json' }
  })
  t.match(res.json(), { received: 4, upserted: 1, failed: 3 })
  t.same(res.json().errors.map((e: { index: number, code: string }) => [e.index, e.code]), [[0, 'invalid_item'], [1, 'invalid_item'], [
    2,
    'invalid_item'
  ]])
  t.match(res.json().errors[2].message, /title/)
  t.equal((await get(app, tenant, 'products', 'fine 😀')).statusCode, 200)
})
