import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

/** Issue 47, point 5: one content-type rule for JSON routes, and prototype-poisoning names refused as what they are. */

const NOT_JSON = /^This operation takes a JSON body: send it with Content-Type: application\/json/

t.test('a JSON route given no body and no Content-Type answers 415 unsupported_media_type', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 415)
  t.equal(res.json().code, 'unsupported_media_type')
  t.match(res.json().message, NOT_JSON)
  t.match(res.json().message, /no Content-Type was sent/)
})

t.test('a JSON route given text/plain answers the same 415, naming the type sent', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    headers: { 'content-type': 'text/plain' },
    payload: '{"products":[]}'
  })
  t.equal(res.statusCode, 415)
  t.equal(res.json().code, 'unsupported_media_type')
  t.match(res.json().message, NOT_JSON)
  t.match(res.json().message, /Content-Type text\/plain was sent/)
})

t.test('a JSON route given a form answers the same 415: /v1 takes no form posts', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'products=1'
  })
  t.equal(res.statusCode, 415)
  t.match(res.json().message, NOT_JSON)
})

t.test('a route without a body takes a bodyless request with no Content-Type, and refuses a text body with 415', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const bare = await call(app, { method: 'POST', url: '/v1/backups', key: tenant.key, store: tenant.storeId })
  t.not(bare.statusCode, 415)
  const text = await call(app, {
    method: 'POST',
    url: '/v1/backups',
    key: tenant.key,
    store: tenant.storeId,
    headers: { 'content-type': 'text/plain' },
    payload: 'hello'
  })
  t.equal(text.statusCode, 415)
  t.match(text.json().message, NOT_JSON)
})

/** PUT /v1/products with `text` sent as it is, declared JSON: for bodies a serializer would not write. */
async function putRawJson (text: string) {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  return call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    headers: { 'content-type': 'application/json' },
    payload: text
  })
}

t.test('{"__proto__": {}} is refused as a forbidden field name, not as invalid JSON', async (t) => {
  const res = await putRawJson('{"products": [], "__proto__": {}}')
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
  t.equal(res.json().message, 'Invalid request: __proto__ and constructor.prototype are forbidden field names')
})

t.test('{"constructor": {"prototype": {}}} is refused as a forbidden field name too', async (t) => {
  const res = await putRawJson('{"constructor": {"prototype": {}}}')
  t.equal(res.statusCode, 400)
  t.equal(res.json().message, 'Invalid request: __proto__ and constructor.prototype are forbidden field names')
})

t.test('malformed JSON is still refused as malformed', async (t) => {
  const res = await putRawJson('{"products": [')
  t.equal(res.statusCode, 400)
  t.match(res.json().message, /not valid JSON/)
})
