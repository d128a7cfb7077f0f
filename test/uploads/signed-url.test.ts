import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

/** The head of an MP4 file (an `ftyp` box, brand isom) and some media bytes. */
const mp4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypisom'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isomiso2'),
  Buffer.alloc(976, 7)
])

let visitor = 0
async function issued () {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const ip = `198.51.100.${++visitor}`
  const grant = (await storefront(app, {
    url: '/v1/reviews/video-upload-url',
    store: tenant.storeId,
    ip,
    payload: { contentType: 'video/mp4', size: mp4.length }
  })).json()
  const url = new URL(grant.uploadUrl)
  const put = (path: string, extra: { store?: string, origin?: string | null } = {}) =>
    storefront(app, { method: 'PUT', url: path, ip, origin: null, payload: mp4, ...extra, headers: { 'content-type': 'video/mp4' } })
  return { app, tenant, url, path: url.pathname + url.search, put }
}

t.test('a video uploads to its signed URL alone, with no store header and no Origin', async (t) => {
  const { put, path, url, tenant } = await issued()
  t.equal(url.searchParams.get('store'), tenant.storeId)
  const res = await put(path)
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.json().size, mp4.length)
})

t.test('a signed URL whose store is changed to another store is refused with upload_url_expired', async (t) => {
  const { app, put, url } = await issued()
  const other = await makeTenant(app, { origins: ['https://shop.example'] })
  url.searchParams.set('store', other.storeId)
  const res = await put(url.pathname + url.search)
  t.equal(res.statusCode, 410)
  t.equal(res.json().code, 'upload_url_expired')
})

t.test('a signed URL used from a browser page of an origin the store does not allow is refused with origin_not_allowed', async (t) => {
  const { put, path } = await issued()
  const res = await put(path, { origin: 'https://evil.example' })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'origin_not_allowed')
})
