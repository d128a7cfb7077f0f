import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { Agent } from './agent.js'
import { JPEG } from '../content/multipart.js'

/** A store with a pending storefront review and a pending gallery photo, and its owner signed in. */
async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  await app.services.products.upsert(store, [{ platformProductId: 'shirt' }])
  const review = await app.services.reviews.submit(store, {
    productId: 'shirt',
    rating: 2,
    title: 'Too small',
    body: 'Runs small.',
    authorName: 'Kim',
    authorEmail: 'kim.private@example.test'
  })
  const gallery = await app.services.galleries.create(store, { name: 'Worn by you', status: 'published' })
  const photo = await app.services.galleryVisitors.submitPhoto(store, gallery.id, JPEG, { caption: 'Park', authorName: 'Lea' })
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  return { app, tenant, review, gallery, photo, agent }
}

t.test('the moderation page shows a pending review with the reviewer\'s full address, which the API never shows', async (t) => {
  const { app, tenant, review, agent } = await setup()
  const page = await agent.get('/admin/reviews')
  t.equal(page.statusCode, 200)
  t.match(page.body, `data-review-id="${review.id}"`)
  t.match(page.body, 'kim.private@example.test')
  const api = await call(app, { method: 'GET', url: `/v1/reviews/${review.id}`, key: tenant.key, store: tenant.storeId })
  t.notMatch(api.body, 'kim.private')
})

t.test('publishing, rejecting and replying from the page change the review as the API would', async (t) => {
  const { app, tenant, review, agent } = await setup()
  const published = await agent.post(`/admin/reviews/${review.id}`, { status: 'published' })
  t.equal(published.statusCode, 303)
  await agent.post(`/admin/reviews/${review.id}`, { reply: 'Sorry! Exchange it for free.' })
  const shown = (await call(app, { method: 'GET', url: `/v1/reviews/${review.id}`, key: tenant.key, store: tenant.storeId })).json()
  t.match(shown, { status: 'published', reply: { body: 'Sorry! Exchange it for free.' } })
  await agent.post(`/admin/reviews/${review.id}`, { status: 'rejected' })
  t.equal((await app.services.reviews.get(tenant.storeId, review.id)).status, 'rejected')
  t.match((await agent.get('/admin/reviews?status=rejected')).body, review.id)
})

t.test('a visitor\'s photo is approved from the gallery page', async (t) => {
  const { app, tenant, gallery, photo, agent } = await setup()
  const page = await agent.get(`/admin/galleries/${gallery.id}/photos`)
  t.match(page.body, `data-photo-id="${photo.id}"`)
  t.match((await agent.get('/admin/galleries')).body, 'Worn by you')
  t.equal((await agent.post(`/admin/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })).statusCode, 303)
  const photos = await app.services.galleries.photos(tenant.storeId, gallery.id, { status: 'approved' })
  t.equal(photos.data[0].id, photo.id)
})

t.test('another organization\'s owner can neither see nor moderate the store\'s reviews and photos', async (t) => {
  const { app, review, gallery, photo } = await setup()
  const other = await makeTenant(app)
  const agent = new Agent(app)
  await agent.signIn(other.owner.email, other.owner.password)
  t.notMatch((await agent.get('/admin/reviews')).body, review.id)
  await agent.get('/admin/reviews')
  t.equal((await agent.post(`/admin/reviews/${review.id}`, { status: 'published' })).statusCode, 404)
  t.equal((await agent.get(`/admin/galleries/${gallery.id}/photos`)).statusCode, 404)
  t.equal((await agent.post(`/admin/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })).statusCode, 404)
})

t.test('FAQs are added, published and deleted from the FAQ page', async (t) => {
  const { app, tenant, agent } = await setup()
  await agent.get('/admin/faqs')
  const added = await agent.post('/admin/faqs', {
    question: 'Does it shrink?',
    answer: 'No.',
    productId: 'shirt',
    status: 'draft',
    position: '2'
  })
  t.equal(added.statusCode, 303)
  const [faq] = (await app.services.faqs.list(tenant.storeId, {})).data
  t.match(faq, { question: 'Does it shrink?', productId: 'shirt', status: 'draft', position: 2 })
  t.match((await agent.get('/admin/faqs')).body, `data-faq-id="${faq.id}"`)
  await agent.post(`/admin/faqs/${faq.id}/status`, { status: 'published' })
  t.equal((await app.services.faqs.get(tenant.storeId, faq.id)).status, 'published')
  await agent.post(`/admin/faqs/${faq.id}/delete`)
  t.equal((await app.services.faqs.list(tenant.storeId, {})).meta.total, 0)
  const empty = await agent.post('/admin/faqs', { question: ' ', answer: 'x', status: 'draft' })
  t.equal(empty.statusCode, 400, 'the form comes back with the problem')
})

t.test('widgets are placed on a web page, hidden and shown again from its page', async (t) => {
  const { app, tenant, agent } = await setup()
  const store = (await app.services.stores.find(tenant.storeId))!
  const page = await app.services.webPages.create(store, { url: 'https://shop.example/products/shirt', type: 'product' })
  t.match((await agent.get('/admin/web-pages')).body, `/admin/web-pages/${page.id}`)
  await agent.get(`/admin/web-pages/${page.id}`)
  t.equal(
    (await agent.post(`/admin/web-pages/${page.id}/placements`, { widget: 'reviews', selector: '#reviews', productId: 'shirt' }))
      .statusCode,
    303
  )
  const [placement] = (await app.services.placements.list(tenant.storeId, { webPageId: page.id })).data
  t.match(placement, { widget: 'reviews', selector: '#reviews', settings: { productId: 'shirt' }, enabled: true })
  await agent.get(`/admin/web-pages/${page.id}`)
  await agent.post(`/admin/web-pages/${page.id}/placements/${placement.id}`, { enabled: 'false' })
  t.equal((await app.services.placements.get(tenant.storeId, placement.id)).enabled, false)
})
