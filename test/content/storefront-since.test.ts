import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { contentApp } from './app.js'
import { formData, JPEG } from './multipart.js'

/** Issue 45, point 10: the storefront lists take `updatedSince` as the other lists do, and FAQs page by 20 unless asked. */

async function setup () {
  const app = await contentApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  const read = (url: string) => storefront(app, { method: 'GET', url: `/v1${url}`, store: tenant.storeId })
  await api('PUT', '/products', { products: [{ platformProductId: 'p1' }] })
  return { app, tenant, api, read }
}

/** The ISO instant a row was last changed: the lists compare it to updatedSince. */
async function changedAt (app: FastifyInstance, table: string, id: string): Promise<string> {
  const row = await app.db(table).where({ id }).first('updated_at')
  return new Date(Number(row.updated_at)).toISOString()
}

t.test('storefront reviews with updatedSince are only those changed at or after it', async (t) => {
  const { app, tenant, read } = await setup()
  const store = (await app.services.stores.find(tenant.storeId))!
  const ids: string[] = []
  for (const rating of [5, 4]) {
    const { id } = await app.services.reviews.submit(store, {
      productId: 'p1',
      rating,
      body: `Rated ${rating}`,
      authorName: 'Ann',
      authorEmail: 'ann@example.test'
    })
    await app.services.reviews.update(store, id, { status: 'published' })
    ids.push(id)
  }
  const since = await changedAt(app, 'reviews', ids[1])
  const res = await read(`/storefront/reviews?productId=p1&updatedSince=${since}`)
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { data: [{ id: ids[1] }], meta: { total: 1 } })
  t.equal(res.json().data.length, 1)
  t.equal((await read('/storefront/reviews?productId=p1')).json().meta.total, 2)
})

t.test('storefront FAQs with updatedSince are only those changed at or after it', async (t) => {
  const { app, api, read } = await setup()
  await api('POST', '/faqs', { question: 'Old?', answer: 'Yes', status: 'published' })
  const late = (await api('POST', '/faqs', { question: 'New?', answer: 'Yes', status: 'published' })).json()
  const res = await read(`/storefront/faqs?updatedSince=${await changedAt(app, 'faqs', late.id)}`)
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().data.map((f: { id: string }) => f.id), [late.id])
})

t.test('storefront FAQs come 20 to a page unless a limit is given', async (t) => {
  const { read } = await setup()
  const res = await read('/storefront/faqs')
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().meta.limit, 20)
})

t.test('a storefront gallery with updatedSince shows only the photos changed at or after it', async (t) => {
  const { app, tenant, api, read } = await setup()
  const gallery = (await api('POST', '/galleries', { name: 'Worn by you', status: 'published' })).json()
  const photos: string[] = []
  for (const ip of ['192.0.2.60', '192.0.2.61']) {
    const sent = await storefront(app, {
      method: 'POST',
      url: `/v1/galleries/${gallery.id}/photos`,
      store: tenant.storeId,
      ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }),
      ip
    })
    photos.push(sent.json().id)
    await api('PATCH', `/galleries/${gallery.id}/photos/${sent.json().id}`, { status: 'approved' })
  }
  const res = await read(`/storefront/galleries/${gallery.id}?updatedSince=${await changedAt(app, 'gallery_photos', photos[1])}`)
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().photos.map((p: { id: string }) => p.id), [photos[1]])
  t.equal(res.json().meta.total, 1)
})
