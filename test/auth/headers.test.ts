import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('a key sent as "Authorization: Bearer" authenticates', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})

t.test('a key sent as "x-api-key" authenticates', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', store: tenant.storeId, headers: { 'x-api-key': tenant.key } })
  t.equal(res.statusCode, 200)
})

t.test('the Bearer scheme is matched case-insensitively', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'GET',
    url: '/v1/api-keys',
    store: tenant.storeId,
    headers: { authorization: `bearer ${tenant.key}` }
  })
  t.equal(res.statusCode, 200)
})

t.test('a request without a credential gets 401 missing_credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.same(res.json(), { message: res.json().message, code: 'missing_credentials', requestId: res.headers['x-request-id'] })
})

t.test('an unknown svc_ key gets 401 invalid_credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: 'svc_' + 'x'.repeat(40), store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('a token of no known type gets 401 invalid_credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', key: 'not-a-key', store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('an Authorization header with another scheme gets 401 invalid_credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'GET',
    url: '/v1/api-keys',
    store: tenant.storeId,
    headers: { authorization: `Basic ${Buffer.from(tenant.key).toString('base64')}` }
  })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('an empty x-api-key header gets 401 invalid_credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/api-keys', store: tenant.storeId, headers: { 'x-api-key': '' } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})
