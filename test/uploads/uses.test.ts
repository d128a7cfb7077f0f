import t, { type Test } from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'
import { visitorsOf } from './visitors.js'

/** A store with a product and a published gallery; visitors upload images, send reviews and gallery photos. */
async function setup (t: Test) {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const api = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  const gallery = (await api('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })).json() as { id: string }
  const { ip, upload } = visitorsOf(t, app, tenant.storeId)
  const review = async (mediaIds: string[]): Promise<string> => {
    const res = await storefront(app, {
      url: '/v1/reviews',
      store: tenant.storeId,
      ip: ip(),
      payload: { productId: 'p1', rating: 5, body: 'See it', authorName: 'Ann', authorEmail: 'ann@example.test', mediaIds }
    })
    t.equal(res.statusCode, 201)
    return res.json().id
  }
  /** A visitor's gallery photo: its image's upload id. */
  const photo = async (): Promise<string> => {
    const sent = await storefront(app, {
      url: `/v1/galleries/${gallery.id}/photos`,
      store: tenant.storeId,
      ip: ip(),
      ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG })
    })
    t.equal(sent.statusCode, 201)
    const listed = (await api('GET', `/v1/galleries/${gallery.id}/photos`)).json().data as Array<{ id: string, imageUrl: string }>
    return new URL(listed.find((p) => p.id === sent.json().id)!.imageUrl).pathname.split('/').pop()!
  }
  const served = async (id: string) => (await app.inject({ method: 'GET', url: `/v1/uploads/${id}` })).statusCode === 200
  return { app, tenant, api, gallery, upload, review, photo, served }
}

async function fileOf (app: FastifyInstance, id: string): Promise<string> {
  const { path } = await app.db('uploads').where({ id }).first()
  return join(app.config.dataDir, path)
}

/** Files go once the deletion has committed, just after the answer. */
async function gone (file: string): Promise<boolean> {
  for (let i = 0; i < 100 && existsSync(file); i++) await sleep(20)
  return !existsSync(file)
}

t.test('deleting a review deletes the images it took, row and file', async (t) => {
  const { app, api, upload, review, served } = await setup(t)
  const image = await upload()
  const file = await fileOf(app, image.id)
  const id = await review([image.id])
  t.equal((await api('DELETE', `/v1/reviews/${id}`)).statusCode, 204)
  t.notOk(await served(image.id), 'no longer served')
  t.ok(await gone(file), 'the file is gone from storage')
})

t.test('an image two reviews show stays until the second of them is deleted', async (t) => {
  const { api, upload, review, served } = await setup(t)
  const image = await upload()
  const [first, second] = [await review([image.id]), await review([image.id])]
  await api('DELETE', `/v1/reviews/${first}`)
  t.ok(await served(image.id), 'the other review still shows it')
  await api('DELETE', `/v1/reviews/${second}`)
  t.notOk(await served(image.id))
})

t.test('deleting a gallery leaves a photo\'s image that a review also shows, and deleting that review then removes it', async (t) => {
  const { app, api, gallery, review, photo, served } = await setup(t)
  const borrowed = await photo()
  const own = await photo()
  const file = await fileOf(app, borrowed)
  const id = await review([borrowed])
  t.equal((await api('DELETE', `/v1/galleries/${gallery.id}`)).statusCode, 204)
  t.ok(await served(borrowed), 'the review keeps its image')
  t.notOk(await served(own), 'the image only the gallery used goes')
  await api('DELETE', `/v1/reviews/${id}`)
  t.notOk(await served(borrowed))
  t.ok(await gone(file))
})

t.test('a replaced email logo is deleted, one kept across a change is not, and a review sharing it keeps it', async (t) => {
  const { api, upload, review, served } = await setup(t)
  const [first, second, shared] = [await upload(), await upload(), await upload()]
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: first.id })).statusCode, 200)
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt & Co', logoUploadId: first.id })).statusCode, 200)
  t.ok(await served(first.id), 'kept while it stays the logo')
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: second.id })).statusCode, 200)
  t.notOk(await served(first.id), 'replaced, it goes')
  await review([shared.id])
  await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: shared.id })
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co' })).statusCode, 200)
  t.notOk(await served(second.id))
  t.ok(await served(shared.id), 'cleared as the logo, still shown by the review')
})

t.test('a review and a gallery deletion of the same image at once leave no use naming a deleted upload and no image a use still names deleted', async (t) => {
  const { app, tenant, api, gallery, review, photo, served } = await setup(t)
  const borrowed = await photo()
  const id = await review([borrowed])
  const [deletedGallery, deletedReview] = await Promise.all([
    api('DELETE', `/v1/galleries/${gallery.id}`),
    api('DELETE', `/v1/reviews/${id}`)
  ])
  t.same([deletedGallery.statusCode, deletedReview.statusCode], [204, 204])
  t.notOk(await served(borrowed), 'with both gone, the image goes')
  t.same(await app.db('upload_uses').where({ store_env_id: tenant.storeId }), [])
})
