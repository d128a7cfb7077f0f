import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { contentApp } from '../content/app.js'
import { formData, JPEG } from '../content/multipart.js'
import { base62 } from '../../src/lib/ids.js'
import { tablesHolding } from './tables-holding.js'

/** A customer, a published gallery, and what the same person then did on it through the storefront. */
async function personWithGalleryData () {
  const app = await contentApp()
  const tenant = await makeTenant(app)
  const api = (method: string, url: string, payload?: object) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload })
  const visitor = (url: string, options: { payload?: unknown, headers?: Record<string, string> }) =>
    storefront(app, { url: `/v1${url}`, store: tenant.storeId, payload: options.payload as object, headers: options.headers })
  const email = `gal-${base62(12).toLowerCase()}@example.test`
  const name = `Zed ${base62(8)}`
  await api('PUT', '/customers', { customers: [{ platformCustomerId: 'c1', email, firstName: 'Zed' }] })
  const customerId = (await api('GET', `/customers?email=${email}`)).json().data[0].id
  const gallery = (await api('POST', '/galleries', { name: 'Worn by you', status: 'published' })).json()
  const photo = async (fields: Record<string, string>) =>
    (await visitor(`/galleries/${gallery.id}/photos`, formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }, fields))).json()
      .id as string
  const lead = await visitor(`/galleries/${gallery.id}/leads`, { payload: { email: email.toUpperCase(), name, consent: true } })
  t.equal(lead.statusCode, 201)
  const published = await photo({
    caption: `Write to ${email.toUpperCase()} for the pattern`,
    authorName: name,
    authorEmail: email.toUpperCase()
  })
  const pending = await photo({ caption: 'Not yet', authorName: name, authorEmail: email })
  const someoneElse = await photo({ authorName: 'Other', authorEmail: 'other@example.test' })
  for (const id of [published, someoneElse]) await api('PATCH', `/galleries/${gallery.id}/photos/${id}`, { status: 'approved' })
  await visitor(`/galleries/${gallery.id}/favourites`, { payload: { photoId: published } })
  const photos = (await api('GET', `/galleries/${gallery.id}/photos`)).json().data as Array<{ id: string, imageUrl: string }>
  const pendingImage = new URL(photos.find((p) => p.id === pending)!.imageUrl).pathname
  return { app, tenant, api, email, name, customerId, gallery, photos: { published, pending, someoneElse }, pendingImage }
}

t.test('erasure leaves the address in no gallery table and the name nowhere, with the published photo kept anonymous', async (t) => {
  const { app, tenant, api, email, name, customerId, gallery, photos } = await personWithGalleryData()
  t.same((await tablesHolding(app, email)).filter((c) => c.startsWith('gallery_')).sort(), [
    'gallery_leads.email',
    'gallery_photos.author_email',
    'gallery_photos.caption'
  ])
  t.ok((await tablesHolding(app, name.toLowerCase())).length > 0, 'the name was stored')

  t.equal((await api('DELETE', `/customers/${customerId}`)).statusCode, 204)
  t.same(await tablesHolding(app, email), ['email_suppressions.email'], 'only the suppression list keeps the address')
  t.same(await tablesHolding(app, name.toLowerCase()), [], 'nor the name, the event log included')
  t.equal((await api('GET', `/galleries/${gallery.id}/leads`)).json().meta.total, 0, 'the lead is deleted')
  const kept = (await api('GET', `/galleries/${gallery.id}/photos`)).json().data
  t.match(kept.find((p: { id: string }) => p.id === photos.published), {
    authorName: null,
    authorEmailLast4: null,
    caption: 'Write to [erased] for the pattern',
    status: 'approved',
    favouriteCount: 1
  })
  t.match(
    kept.find((p: { id: string }) => p.id === photos.someoneElse),
    { authorName: 'Other', authorEmailLast4: 'test' },
    'another visitor\'s photo keeps its author'
  )
  t.notOk(kept.some((p: { id: string }) => p.id === photos.pending), 'the unpublished photo is deleted')
  const shown = await storefront(app, { method: 'GET', url: `/v1/storefront/galleries/${gallery.id}`, store: tenant.storeId })
  t.same(
    shown.json().photos.map((p: { id: string, authorName: string | null }) => [p.id, p.authorName]).sort(),
    [[photos.published, null], [photos.someoneElse, 'Other']].sort()
  )
})

t.test('erasure stops serving the image of a photo the person sent that was never published', async (t) => {
  const { app, api, customerId, pendingImage } = await personWithGalleryData()
  t.equal((await app.inject({ method: 'GET', url: pendingImage })).statusCode, 200)
  await api('DELETE', `/customers/${customerId}`)
  t.equal((await app.inject({ method: 'GET', url: pendingImage })).statusCode, 404)
})

t.test('erasure removes the image file of a photo the person sent that was never published from storage', async (t) => {
  const { app, api, customerId, pendingImage } = await personWithGalleryData()
  const { path } = await app.db('uploads').where({ id: pendingImage.split('/').pop() }).first()
  const file = join(app.config.dataDir, path)
  t.ok(existsSync(file), 'the image is on disk')
  t.equal((await api('DELETE', `/customers/${customerId}`)).statusCode, 204)
  // The file goes once the erasure has committed, just after the answer.
  for (let i = 0; i < 100 && existsSync(file); i++) await sleep(20)
  t.notOk(existsSync(file), 'the image is gone from disk')
})
