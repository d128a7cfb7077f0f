import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { build, call, manualClock } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { contentApp } from './app.js'
import { formData, JPEG } from './multipart.js'
import { galleryVisitorsService } from '../../src/modules/galleries/gallery-visitors.service.js'
import { domainEvents } from '../../src/lib/domain-events.js'

async function setup (app?: Awaited<ReturnType<typeof contentApp>>) {
  app ??= await contentApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const api = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  const gallery = (await api('POST', '/galleries', { name: 'Worn by you', status: 'published' })).json()
  const visitor = (method: string, url: string, options: { payload?: unknown, headers?: Record<string, string>, ip?: string } = {}) =>
    storefront(app, {
      method: method as 'GET',
      url: `/v1${url}`,
      store: tenant.storeId,
      payload: options.payload as object,
      headers: options.headers,
      ip: options.ip
    })
  const sendPhoto = (fields: Record<string, string> = {}, ip?: string) =>
    visitor('POST', `/galleries/${gallery.id}/photos`, { ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }, fields), ip })
  return { app, tenant, api, gallery, visitor, sendPhoto }
}

t.test('a visitor\'s photo waits for moderation and shows on the storefront once approved, without the address', async (t) => {
  const { api, gallery, visitor, sendPhoto } = await setup()
  const sent = await sendPhoto({ caption: 'Beach day', authorName: 'Ann', authorEmail: 'ann@example.test' })
  t.equal(sent.statusCode, 201, sent.body)
  t.match(sent.json(), { id: /^gph_/, status: 'pending' })
  t.same((await visitor('GET', `/storefront/galleries/${gallery.id}`)).json().photos, [], 'pending photos are not shown')
  const pending = (await api('GET', `/galleries/${gallery.id}/photos?status=pending`)).json()
  t.match(pending.data, [{ id: sent.json().id, caption: 'Beach day', authorName: 'Ann', authorEmailLast4: 'test', status: 'pending' }])
  const approved = await api('PATCH', `/galleries/${gallery.id}/photos/${sent.json().id}`, { status: 'approved' })
  t.equal(approved.json().status, 'approved')
  const shown = await visitor('GET', `/storefront/galleries/${gallery.id}`)
  t.match(shown.json(), {
    id: gallery.id,
    photos: [{ id: sent.json().id, caption: 'Beach day', authorName: 'Ann', favouriteCount: 0 }],
    meta: { total: 1 }
  })
  t.notMatch(shown.body, /ann@|example\.test/, 'no part of the address')
  t.equal((await api('GET', `/galleries/${gallery.id}/photos?status=pending`)).json().meta.total, 0)
  const types = (await api('GET', '/events?limit=100')).json().events.map((e: { type: string }) => e.type)
  t.same(types, ['gallery.created', 'gallery.photo.created', 'gallery.photo.updated'])
})

t.test('a photo that is not an image by content, or too large, is refused and nothing is stored', async (t) => {
  const { app, tenant, gallery, visitor } = await setup()
  const renamed = await visitor(
    'POST',
    `/galleries/${gallery.id}/photos`,
    formData({ filename: 'x.jpg', type: 'image/jpeg', bytes: Buffer.from('not an image at all') })
  )
  t.equal(renamed.statusCode, 415)
  t.equal(renamed.json().code, 'unsupported_media_type')
  const big = Buffer.concat([JPEG, Buffer.alloc(10 * 1024 * 1024)])
  const tooBig = await visitor('POST', `/galleries/${gallery.id}/photos`, formData({ filename: 'x.jpg', type: 'image/jpeg', bytes: big }))
  t.equal(tooBig.statusCode, 413)
  const long = await visitor(
    'POST',
    `/galleries/${gallery.id}/photos`,
    formData({ filename: 'x.jpg', type: 'image/jpeg', bytes: JPEG }, { caption: 'c'.repeat(501) })
  )
  t.equal(long.statusCode, 400)
  const badEmail = await visitor(
    'POST',
    `/galleries/${gallery.id}/photos`,
    formData({ filename: 'x.jpg', type: 'image/jpeg', bytes: JPEG }, { authorEmail: 'nope' })
  )
  t.equal(badEmail.json().code, 'invalid_request')
  t.equal((await app.db('gallery_photos').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n, 0)
})

t.test('a photo in a multipart body without a boundary, or cut off before its closing boundary, is refused with invalid_request', async (t) => {
  const { app, tenant, gallery, visitor } = await setup()
  const { payload, headers } = formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG })
  const noBoundary = await visitor('POST', `/galleries/${gallery.id}/photos`, {
    payload,
    headers: { 'content-type': 'multipart/form-data' },
    ip: '192.0.2.21'
  })
  t.equal(noBoundary.statusCode, 400, noBoundary.body)
  t.equal(noBoundary.json().code, 'invalid_request')
  const cutOff = await visitor('POST', `/galleries/${gallery.id}/photos`, {
    payload: payload.subarray(0, payload.length - 30),
    headers,
    ip: '192.0.2.22'
  })
  t.equal(cutOff.statusCode, 400, cutOff.body)
  t.equal(cutOff.json().code, 'invalid_request')
  t.equal(Number((await app.db('gallery_photos').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 0)
})

t.test('a draft gallery is not shown and takes no photos, leads or favourites', async (t) => {
  const { api, visitor } = await setup()
  const draft = (await api('POST', '/galleries', { name: 'Soon' })).json()
  t.equal((await visitor('GET', `/storefront/galleries/${draft.id}`)).statusCode, 404)
  t.equal((await visitor('POST', `/galleries/${draft.id}/leads`, { payload: { email: 'a@b.test', consent: true } })).statusCode, 404)
  t.equal((await visitor('POST', `/galleries/${draft.id}/favourites`, { payload: { photoId: 'gph_x' } })).statusCode, 404)
})

t.test('a lead needs consent, is stored once per address and is listed for the merchant', async (t) => {
  const { api, gallery, visitor } = await setup()
  const noConsent = await visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'ann@example.test', consent: false } })
  t.equal(noConsent.statusCode, 400)
  t.equal((await visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'not-an-email', consent: true } })).statusCode, 400)
  const first = await visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'Ann@Example.test', consent: true } })
  t.equal(first.statusCode, 201)
  t.same(first.json(), { received: true })
  await visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'ann@example.test', name: 'Ann', consent: true } })
  const leads = (await api('GET', `/galleries/${gallery.id}/leads`)).json()
  t.match(leads, { meta: { total: 1 }, data: [{ email: 'ann@example.test', name: 'Ann', consent: true, galleryId: gallery.id }] })
})

t.test('one address sent to a gallery\'s lead form from several visitors at once is stored once', async (t) => {
  const { api, gallery, visitor } = await setup()
  const ips = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5']
  const answers = await Promise.all(
    ips.map((ip) => visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'Ann@Example.test', consent: true }, ip }))
  )
  t.same(answers.map((r) => r.statusCode), ips.map(() => 201), answers.map((r) => r.body).join('\n'))
  t.match((await api('GET', `/galleries/${gallery.id}/leads`)).json(), { meta: { total: 1 }, data: [{ email: 'ann@example.test' }] })
})

t.test('a photo or a lead sent as its gallery is deleted is refused with 404, or goes with the gallery: never a 500', async (t) => {
  const app = await contentApp()
  for (let round = 0; round < 3; round++) {
    const { api, gallery, visitor, sendPhoto } = await setup(app)
    const [photo, lead, deleted] = await Promise.all([
      sendPhoto({}, `192.0.2.${round + 1}`),
      visitor('POST', `/galleries/${gallery.id}/leads`, {
        payload: { email: 'ann@example.test', consent: true },
        ip: `198.51.100.${round + 1}`
      }),
      api('DELETE', `/galleries/${gallery.id}`)
    ])
    t.equal(deleted.statusCode, 204)
    t.ok([201, 404].includes(photo.statusCode), `photo: ${photo.statusCode}`)
    t.ok([201, 404].includes(lead.statusCode), `lead: ${lead.statusCode}`)
    t.equal((await api('GET', `/galleries/${gallery.id}/leads`)).statusCode, 404)
  }
})

t.test('a lead is told to the modules that react to it, in the lead\'s transaction, with the store and address', async (t) => {
  const seen: unknown[] = []
  const app = await build(t)
  const s = app.services
  const bus = domainEvents()
  bus.on('gallery.lead', async (trx, { lead }) => { seen.push({ ...lead, inTransaction: typeof trx.commit === 'function' }) })
  const visitors = galleryVisitorsService({
    db: app.db,
    repo: s.galleriesRepo,
    galleries: s.galleries,
    clock: s.clock,
    secretKey: 'k',
    storeImage: s.uploads.storeImage,
    attachUploads: s.uploads.attach,
    bus
  })
  const tenant = await makeTenant(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  const gallery = await s.galleries.create(store, { name: 'G', status: 'published' })
  await visitors.lead(store, gallery.id, { email: 'bo@example.test', name: 'Bo' })
  t.same(seen, [{ orgId: tenant.orgId, storeEnvId: tenant.storeId, email: 'bo@example.test', name: 'Bo', inTransaction: true }])
})

t.test('a visitor favourites an approved photo once; another visitor adds one', async (t) => {
  const { api, gallery, visitor, sendPhoto } = await setup()
  const photo = (await sendPhoto()).json()
  const fav = (ip: string) => visitor('POST', `/galleries/${gallery.id}/favourites`, { payload: { photoId: photo.id }, ip })
  t.equal((await fav('192.0.2.1')).statusCode, 404, 'a pending photo takes no favourites')
  await api('PATCH', `/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })
  t.same((await fav('192.0.2.1')).json(), { favouriteCount: 1 })
  t.same((await fav('192.0.2.1')).json(), { favouriteCount: 1 })
  t.same((await fav('192.0.2.2')).json(), { favouriteCount: 2 })
})

t.test('visitors favouriting one photo at once are each counted once', async (t) => {
  const { api, gallery, visitor, sendPhoto } = await setup()
  const photo = (await sendPhoto()).json()
  await api('PATCH', `/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })
  const ips = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5', '192.0.2.1', '192.0.2.2']
  const answers = await Promise.all(
    ips.map((ip) => visitor('POST', `/galleries/${gallery.id}/favourites`, { payload: { photoId: photo.id }, ip }))
  )
  t.same(answers.map((r) => r.statusCode), ips.map(() => 200), answers.map((r) => r.body).join('\n'))
  const shown = await visitor('GET', `/storefront/galleries/${gallery.id}`)
  t.equal(shown.json().photos[0].favouriteCount, 5)
})

t.test('moderating needs galleries:write, and a photo of another gallery is not found', async (t) => {
  const { app, tenant, api, gallery, sendPhoto } = await setup()
  const photo = (await sendPhoto()).json()
  const viewer = await makeKey(app, tenant, 'viewer')
  const refused = await call(app, {
    method: 'PATCH',
    url: `/v1/galleries/${gallery.id}/photos/${photo.id}`,
    key: viewer.secret,
    store: tenant.storeId,
    payload: { status: 'approved' }
  })
  t.equal(refused.json().code, 'role_read_only')
  const other = (await api('POST', '/galleries', { name: 'Other' })).json()
  t.equal((await api('PATCH', `/galleries/${other.id}/photos/${photo.id}`, { status: 'approved' })).statusCode, 404)
  t.equal((await api('PATCH', `/galleries/${gallery.id}/photos/${photo.id}`, { status: 'hidden' })).statusCode, 400)
})

t.test('another store sees none of a gallery\'s photos or leads and cannot moderate them', async (t) => {
  const { app, gallery, visitor, sendPhoto } = await setup()
  const photo = (await sendPhoto()).json()
  await visitor('POST', `/galleries/${gallery.id}/leads`, { payload: { email: 'ann@example.test', consent: true } })
  const other = await makeTenant(app)
  const theirs = (method: string, url: string, payload?: object) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: other.key, store: other.storeId, payload })
  t.equal((await theirs('GET', `/galleries/${gallery.id}/photos`)).statusCode, 404)
  t.equal((await theirs('GET', `/galleries/${gallery.id}/leads`)).statusCode, 404)
  t.equal((await theirs('PATCH', `/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })).statusCode, 404)
  const foreign = await storefront(app, { method: 'GET', url: `/v1/storefront/galleries/${gallery.id}`, store: other.storeId })
  t.equal(foreign.statusCode, 404, 'nor through its storefront')
})

t.test('gallery writes keep their per-IP limits exactly: photos 3/s and 10/min, leads 3/s and 10/min, favourites 5/s and 30/min', async (t) => {
  const clock = manualClock()
  const { gallery, visitor } = await setup(await build(t, { clock }))
  const cases: Array<[string, unknown, number, number]> = [
    [`/galleries/${gallery.id}/leads`, { email: 'a@b.test', consent: true }, 3, 10],
    [`/galleries/${gallery.id}/favourites`, { photoId: 'gph_none' }, 5, 30]
  ]
  for (const [url, payload, perSecond, perMinute] of cases) {
    const send = (ip = '198.51.100.30') => visitor('POST', url, { payload, ip })
    let sent = 0
    while (sent < perMinute) {
      for (let i = 0; i < perSecond && sent < perMinute; i++, sent++) t.not((await send()).statusCode, 429, `${url} #${sent + 1}`)
      if (sent % perSecond === 0 && sent < perMinute) t.equal((await send()).statusCode, 429, `${url}: one over ${perSecond}/s`)
      clock.advance(1000)
    }
    t.equal((await send()).statusCode, 429, `${url}: one over ${perMinute}/min`)
    t.not((await send('198.51.100.31')).statusCode, 429, 'another visitor has a budget of its own')
    clock.advance(60_000)
  }
  const photo = (ip = '198.51.100.40') =>
    visitor('POST', `/galleries/${gallery.id}/photos`, { payload: 'x', headers: { 'content-type': 'text/plain' }, ip })
  for (let i = 0; i < 3; i++) t.not((await photo()).statusCode, 429)
  t.equal((await photo()).statusCode, 429, 'photos: one over 3/s')
})

t.test('deleting a gallery stops serving its photos\' images and removes their files', async (t) => {
  const { app, api, gallery, sendPhoto } = await setup()
  for (const ip of ['192.0.2.31', '192.0.2.32']) t.equal((await sendPhoto({}, ip)).statusCode, 201)
  const photos = (await api('GET', `/galleries/${gallery.id}/photos`)).json().data as Array<{ id: string, imageUrl: string }>
  await api('PATCH', `/galleries/${gallery.id}/photos/${photos[0].id}`, { status: 'approved' })
  const images = photos.map((p) => new URL(p.imageUrl).pathname)
  const files = await Promise.all(
    images.map(async (path) => join(app.config.dataDir, (await app.db('uploads').where({ id: path.split('/').pop() }).first()).path))
  )
  t.equal((await api('DELETE', `/galleries/${gallery.id}`)).statusCode, 204)
  for (const path of images) t.equal((await app.inject({ method: 'GET', url: path })).statusCode, 404, path)
  // The files go once the deletion has committed, just after the answer.
  for (let i = 0; i < 100 && files.some(existsSync); i++) await sleep(20)
  t.same(files.filter(existsSync), [], 'no file is left on disk')
})
