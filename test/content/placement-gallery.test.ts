import t from 'tap'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { contentApp as sharedApp } from './app.js'

/** A store with a web page, and its api; the gallery of another organization's store beside it. */
async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const api = (method: string, url: string, payload?: unknown, as = tenant) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: as.key, store: as.storeId, payload: payload as object })
  const page = (await api('POST', '/web-pages', { url: 'https://shop.example/', type: 'home' })).json().id as string
  const own = (await api('POST', '/galleries', { name: 'Ours' })).json().id as string
  const foreign = (await api('POST', '/galleries', { name: 'Theirs' }, other)).json().id as string
  return { api, page, own, foreign }
}

t.test('a placement naming another organization\'s gallery, or none, is refused with 400', async (t) => {
  const { api, page, foreign } = await setup()
  for (const galleryId of [foreign, 'gal_doesnotexist']) {
    const res = await api('POST', '/placements', { webPageId: page, widget: 'gallery', selector: '#g', settings: { galleryId } })
    t.equal(res.statusCode, 400, galleryId)
    t.match(res.json(), { code: 'invalid_request', message: /galleryId/ })
  }
})

t.test('a placement\'s gallery changed to another organization\'s is refused with 400 and the placement keeps its own', async (t) => {
  const { api, page, own, foreign } = await setup()
  const created = await api('POST', '/placements', { webPageId: page, widget: 'gallery', selector: '#g', settings: { galleryId: own } })
  t.equal(created.statusCode, 201, created.body)
  const res = await api('PATCH', `/placements/${created.json().id}`, { settings: { galleryId: foreign } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
  t.same((await api('GET', `/placements/${created.json().id}`)).json().settings, { galleryId: own })
})
