import t from 'tap'
import { call, sharedApp, errorBody } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('a body missing two required fields names both, each by its path', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'POST', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId, payload: {} })
  t.equal(res.statusCode, 400)
  t.same(errorBody(res), {
    message: 'Invalid request: name is required; role is required',
    code: 'invalid_request',
    errors: [{ path: 'name', message: 'is required' }, { path: 'role', message: 'is required' }]
  })
})

t.test('a value outside a union of fixed values lists the allowed ones, and an unknown field is named', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'ci', role: 'boss', colour: 'red' }
  })
  t.equal(res.statusCode, 400)
  t.same(res.json().errors, [
    { path: 'colour', message: 'is not a known field' },
    { path: 'role', message: 'must be one of: "admin", "editor", "viewer"' }
  ])
})

t.test('a wrong type reads as the type wanted', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 5, role: 'admin', scopes: 'read' }
  })
  t.same(res.json().errors, [{ path: 'name', message: 'must be a string' }, { path: 'scopes', message: 'must be an array' }])
})

t.test('querystring problems carry the querystring path, every one of them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/reviews?rating=9&status=nope', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 400)
  t.same(res.json().errors.map((e: { path: string }) => e.path).sort(), ['querystring.rating', 'querystring.status'])
})

t.test('a body with hundreds of problems lists twenty of them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scopes = Array.from({ length: 70 }, (_, i) => i)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'ci', role: 'admin', scopes }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().errors.length, 20)
  t.match(res.json().errors[0], { path: 'scopes.0', message: 'must be a string' })
})

t.test('an unknown scope is refused with the forms a scope can take', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'ci', role: 'viewer', scopes: ['review:read'] }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_scope')
  t.match(
    res.json().message,
    /^Unknown scope: review:read\. A scope is `read`, `write`, or `<resource>:read` \/ `<resource>:write` with a resource of: [a-z-]+(, [a-z-]+)+$/
  )
  t.match(res.json().message, /\breviews, /, 'the list names the resource meant')
})

t.test('a large invalid body is answered with its first problem only, so listing problems costs no more than parsing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scopes = new Array(100_000).fill(1)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'ci', role: 'admin', scopes }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
  t.equal(res.json().errors.length, 1)
  t.match(res.json().errors[0], { path: 'scopes' })
})
