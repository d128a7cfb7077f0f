import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

/** Issue 47, point 3: RFC 9457 problem details when the client's Accept prefers them; `{ message, code }` otherwise. */

t.test('with Accept: application/problem+json an error is RFC 9457 problem details with code and requestId', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/nothing-here', headers: { accept: 'application/problem+json' } })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  t.same(res.json(), {
    type: 'tag:evidence-hub,2026:errors:not_found',
    title: 'Not found',
    status: 404,
    detail: 'Route GET /v1/nothing-here not found',
    code: 'not_found',
    requestId: res.headers['x-request-id']
  })
})

t.test('a validation problem in problem details lists every field problem under errors', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'GET',
    url: '/v1/products?limit=0',
    key: tenant.key,
    store: tenant.storeId,
    headers: { accept: 'application/problem+json' }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    type: 'tag:evidence-hub,2026:errors:invalid_request',
    title: 'Invalid request',
    status: 400,
    code: 'invalid_request'
  })
  t.match(res.json().errors, [{ path: 'limit' }])
})

t.test('a 401 in problem details keeps its WWW-Authenticate challenge', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/products', headers: { accept: 'application/problem+json' } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().title, 'Missing credentials')
  t.equal(res.headers['www-authenticate'], 'Bearer realm="evidence-hub"')
})

t.test('without Accept, or with */* or application/json, an error stays { message, code, requestId }', async (t) => {
  const app = await sharedApp()
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, application/problem+json']) {
    const res = await app.inject({ method: 'GET', url: '/v1/nothing-here', headers: accept ? { accept } : {} })
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', String(accept))
    t.same(Object.keys(res.json()).sort(), ['code', 'message', 'requestId'], String(accept))
  }
})

t.test('Accept q-values decide: problem+json preferred by quality wins, at q=0 or below application/json it does not', async (t) => {
  const app = await sharedApp()
  const typeFor = async (accept: string) =>
    (await app.inject({ method: 'GET', url: '/v1/nothing-here', headers: { accept } })).headers['content-type']
  t.equal(await typeFor('application/json;q=0.5, application/problem+json'), 'application/problem+json; charset=utf-8')
  t.equal(await typeFor('application/problem+json;q=0.9, application/json'), 'application/json; charset=utf-8')
  t.equal(await typeFor('application/problem+json;q=0, */*'), 'application/json; charset=utf-8')
  t.equal(await typeFor('application/problem+json, */*;q=0.1'), 'application/problem+json; charset=utf-8')
})

t.test('a success answer is unaffected by Accept: application/problem+json', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/health', headers: { accept: 'application/problem+json' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
})
