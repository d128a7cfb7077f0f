import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'
import { visitorsOf } from './visitors.js'

const HOUR = 3_600_000

/** A store with a product, on a clock the test moves; `upload` sends an image as a visitor would. */
async function setup (t: Parameters<typeof build>[0]) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const api = (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  const { ip, upload } = visitorsOf(t, app, tenant.storeId)
  const review = (mediaIds: string[]) =>
    storefront(app, {
      url: '/v1/reviews',
      store: tenant.storeId,
      ip: ip(),
      payload: { productId: 'p1', rating: 5, body: 'See it', authorName: 'Ann', authorEmail: 'ann@example.test', mediaIds }
    })
  const served = async (upload: { url: string }) =>
    (await app.inject({ method: 'GET', url: new URL(upload.url).pathname })).statusCode === 200
  return { app, clock, tenant, api, ip, upload, review, served }
}

async function fileOf (app: FastifyInstance, id: string): Promise<string> {
  const { path } = await app.db('uploads').where({ id }).first()
  return join(app.config.dataDir, path)
}

t.test('an image nothing took is deleted, file and all, once a day has passed, and not before', async (t) => {
  const { app, clock, tenant, upload, served } = await setup(t)
  const image = await upload()
  const file = await fileOf(app, image.id)
  clock.advance(23 * HOUR)
  t.equal(await app.services.abandonedUploads(tenant.storeId), 0)
  t.ok(await served(image), 'kept within the day')
  clock.advance(HOUR + 1)
  t.equal(await app.services.abandonedUploads(tenant.storeId), 1)
  t.notOk(await served(image), 'no longer served')
  t.notOk(existsSync(file), 'the file is gone from storage')
})

t.test('images a review, a gallery photo or the email branding took stay after the day', async (t) => {
  const { app, clock, tenant, api, ip, upload, review, served } = await setup(t)
  const [inReview, logo] = [await upload(), await upload()]
  t.equal((await review([inReview.id])).statusCode, 201)
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: logo.id })).statusCode, 200)
  const gallery = (await api('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })).json()
  const sent = await storefront(app, {
    url: `/v1/galleries/${gallery.id}/photos`,
    store: tenant.storeId,
    ip: ip(),
    ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG })
  })
  t.equal(sent.statusCode, 201)
  const photo = (await api('GET', `/v1/galleries/${gallery.id}/photos`)).json().data[0]
  clock.advance(48 * HOUR)
  t.equal(await app.services.abandonedUploads(tenant.storeId), 0)
  for (const image of [inReview, logo, { url: photo.imageUrl }]) t.ok(await served(image), image.url)
})

t.test('a review naming an upload already deleted as abandoned is refused with 400, naming it', async (t) => {
  const { app, clock, tenant, upload, review } = await setup(t)
  const image = await upload()
  clock.advance(25 * HOUR)
  await app.services.abandonedUploads(tenant.storeId)
  const res = await review([image.id])
  t.equal(res.statusCode, 400)
  t.match(res.json(), { code: 'invalid_request', message: new RegExp(image.id) })
})

t.test('a review sent as the sweep runs either takes the upload, which stays, or is refused, never naming a deleted one', async (t) => {
  const { app, clock, tenant, api, upload, review, served } = await setup(t)
  const outcomes = new Set<number>()
  for (let round = 0; round < 6; round++) {
    const image = await upload()
    clock.advance(25 * HOUR)
    // The sweep starts a little later each round, so the two meet at different points of the review's work.
    const [res] = await Promise.all([review([image.id]), sleep(round * 2).then(() => app.services.abandonedUploads(tenant.storeId))])
    outcomes.add(res.statusCode)
    t.ok([201, 400].includes(res.statusCode), `round ${round}: ${res.statusCode} ${res.body}`)
    if (res.statusCode === 201) {
      t.ok(await served(image), 'the review\'s image is served')
      t.match((await api('GET', `/v1/reviews/${res.json().id}`)).json().media, [{ id: image.id }])
    } else {
      t.notOk(await served(image), 'the refused review\'s image is gone')
    }
  }
  t.comment(`outcomes: ${[...outcomes].join(', ')}`)
})
