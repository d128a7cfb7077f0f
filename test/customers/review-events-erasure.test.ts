import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { base62 } from '../../src/lib/ids.js'

t.test('erasure anonymises the events of the customer\'s reviews even where no text names the address', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: object) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload })
  const email = `leaving-${base62(10).toLowerCase()}@example.test`
  const name = `Leaving ${base62(8)}`
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  await api('PUT', '/customers', { customers: [{ platformCustomerId: 'c1', email }] })
  const submitted = await call(app, {
    method: 'POST',
    url: '/v1/reviews',
    store: tenant.storeId,
    headers: { origin: 'https://shop.example' },
    payload: { productId: 'p1', rating: 4, body: 'Nice fabric', authorName: name, authorEmail: email }
  })
  const reviewId = submitted.json().id
  await api('PATCH', `/reviews/${reviewId}`, { status: 'published' })
  const logged = () =>
    app.db('events').where({ store_env_id: tenant.storeId }).whereRaw('data like ?', [`%${reviewId}%`]).select('type', 'data')
  t.ok((await logged()).some((e: { data: string }) => e.data.includes(name)), 'the events named the author before')

  const id = (await api('GET', `/customers?email=${email}`)).json().data[0].id
  t.equal((await api('DELETE', `/customers/${id}`)).statusCode, 204)
  const after = await logged()
  t.ok(after.length >= 2)
  t.notOk(after.some((e: { data: string }) => e.data.includes(name)), 'no event names the author')
  t.ok(
    after.filter((e: { type: string }) => e.type.startsWith('review.')).every((e: { data: string }) =>
      JSON.parse(e.data).authorName === 'Anonymous'
    )
  )
})

t.test('erasure leaves the events of other authors\' reviews as they were', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: object) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload })
  const email = `leaving-${base62(10).toLowerCase()}@example.test`
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  await api('PUT', '/customers', { customers: [{ platformCustomerId: 'c1', email }] })
  const other = await call(app, {
    method: 'POST',
    url: '/v1/reviews',
    store: tenant.storeId,
    headers: { origin: 'https://shop.example' },
    payload: { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Staying Shopper', authorEmail: 'stays@example.test' }
  })
  const id = (await api('GET', `/customers?email=${email}`)).json().data[0].id
  t.equal((await api('DELETE', `/customers/${id}`)).statusCode, 204)
  const kept = await app.db('events').where({ store_env_id: tenant.storeId, type: 'review.created' }).whereRaw('data like ?', [
    `%${other.json().id}%`
  ]).first('data')
  t.equal(JSON.parse(kept.data).authorName, 'Staying Shopper')
})
