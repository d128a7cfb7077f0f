import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

/** Issue 47, point 4: 405 with Allow for a known path, RFC 6750's challenge on every 401 of the API. */

t.test('DELETE /v1/products is 405 method_not_allowed naming the methods it answers in Allow', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'DELETE', url: '/v1/products' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, PUT')
  t.equal(res.json().code, 'method_not_allowed')
  t.equal(res.json().message, 'DELETE is not allowed on /v1/products; it answers GET, HEAD, PUT')
})

t.test('a path with parameters is matched too: POST /v1/reviews/:id is 405 with GET, HEAD, PATCH, DELETE', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'POST', url: '/v1/reviews/rev_x?x=1', key: tenant.key, store: tenant.storeId, payload: {} })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, PATCH, DELETE')
})

t.test('an unknown path under /v1 stays 404 not_found, without Allow', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'DELETE', url: '/v1/no-such-thing' })
  t.equal(res.statusCode, 404)
  t.equal(res.headers.allow, undefined)
  t.equal(res.json().code, 'not_found')
})

t.test('a path outside /v1 is not told apart by its methods: DELETE on a known API-external path stays 404', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'DELETE', url: '/docs/versioning' })
  t.equal(res.statusCode, 404)
  t.equal(res.headers.allow, undefined)
})

t.test('a 401 without a credential challenges with Bearer and the realm, no error code (RFC 6750 section 3.1)', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/products' })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Bearer realm="evidence-hub"')
})

t.test('a 401 for a refused credential says invalid_token with a description', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: 'Bearer svc_unknown' } })
  t.equal(res.statusCode, 401)
  t.equal(
    res.headers['www-authenticate'],
    'Bearer realm="evidence-hub", error="invalid_token", error_description="The credential is unknown, revoked or expired"'
  )
})

t.test('a 401 for an unknown x-api-key challenges the same way', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/products', headers: { 'x-api-key': 'svc_unknown' } })
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /^Bearer realm="evidence-hub", error="invalid_token"/)
})
