import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'

const putProducts = (app: FastifyInstance, tenant: Tenant, products: unknown[]) =>
  call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: { products } })
const list = async (app: FastifyInstance, tenant: Tenant, url: string) => {
  const res = await call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json()
}
const ids = (page: { data: Array<{ platformProductId: string }> }) => page.data.map((p) => p.platformProductId)

t.test('updatedSince lists changes oldest first and the cursor continues where the page ended', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  for (const id of ['a', 'b', 'c', 'd', 'e']) {
    await putProducts(app, tenant, [{ platformProductId: id, title: id }])
    clock.advance(1000)
  }
  const since = new Date(clock() - 4500).toISOString()
  const first = await list(app, tenant, `/v1/products?updatedSince=${since}&limit=2`)
  t.same(ids(first), ['b', 'c'])
  t.match(first.meta, { total: 4, hasMore: true })
  const second = await list(app, tenant, `/v1/products?cursor=${first.meta.nextCursor}&limit=2`)
  t.same(ids(second), ['d', 'e'])
  t.equal(second.meta.hasMore, false)
  const after = await list(app, tenant, `/v1/products?cursor=${second.meta.nextCursor}&limit=2`)
  t.same(after.data, [], 'the last cursor resumes after everything seen')
  t.equal(after.meta.nextCursor, second.meta.nextCursor, 'and stays where it was until something changes')
})

t.test('a record updated between page fetches is not skipped: it comes back on a later page', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  // Same updated_at for the whole batch: the id breaks the ties.
  await putProducts(app, tenant, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((id) => ({ platformProductId: id, title: id })))
  clock.advance(1000)
  const seen: string[] = []
  let page = await list(app, tenant, '/v1/products?updatedSince=2000-01-01T00:00:00Z&limit=2')
  seen.push(...ids(page))
  // A record already read and one not yet read both change while the client pages.
  await putProducts(app, tenant, [{ platformProductId: 'p1', title: 'p1 changed' }, { platformProductId: 'p4', title: 'p4 changed' }])
  while (page.meta.hasMore) {
    page = await list(app, tenant, `/v1/products?cursor=${page.meta.nextCursor}&limit=2`)
    seen.push(...ids(page))
  }
  t.same([...new Set(seen)].sort(), ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], 'every record was seen')
  t.same(seen.slice(-2), ['p1', 'p4'], 'the changed records come again, in their new place')
})

t.test('orders and reviews take updatedSince too', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o1' }, { platformOrderId: 'o2' }] }
  })
  const orders = await list(app, tenant, '/v1/orders?updatedSince=2000-01-01T00:00:00Z&limit=1')
  t.equal(orders.data.length, 1)
  t.match(orders.meta, { total: 2, hasMore: true })
  const rest = await list(app, tenant, `/v1/orders?cursor=${orders.meta.nextCursor}`)
  t.same([orders.data[0].platformOrderId, rest.data[0].platformOrderId].sort(), ['o1', 'o2'])
  const reviews = await list(app, tenant, '/v1/reviews?updatedSince=2000-01-01T00:00:00Z')
  t.same(reviews.data, [])
  t.equal(reviews.meta.hasMore, false)
})

t.test('a cursor that was not given out, or a date outside 1970-9999, is a 400', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const forged = Buffer.from('12.x y').toString('base64url')
  for (const url of [
    `/v1/products?cursor=${forged}`, '/v1/orders?cursor=bm9wZQ', `/v1/reviews?cursor=${'a'.repeat(121)}`, '/v1/products?cursor=a%20b',
    `/v1/orders?cursor=${Buffer.from('1.99999999999999999999').toString('base64url')}`,
    '/v1/products?updatedSince=0000-01-01T00:00:00Z', '/v1/products?updatedSince=yesterday'
  ]) {
    const res = await call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('one store never sees another store\'s changes through a sync list', async (t) => {
  const app = await sharedApp()
  const one = await makeTenant(app)
  const two = await makeTenant(app)
  await putProducts(app, one, [{ platformProductId: 'mine' }])
  const page = await list(app, two, '/v1/products?updatedSince=2000-01-01T00:00:00Z')
  t.same(page.data, [])
})
