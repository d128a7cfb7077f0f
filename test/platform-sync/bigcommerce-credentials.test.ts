import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'

const URL_PATH = '/v1/webhooks/platforms/bigcommerce/credentials'
const STORE_HASH = 'id30h7ohwf'
const TOKEN = 'bcTokenSecret0123456789abcdefghij'

const put = (app: FastifyInstance, tenant: Tenant, payload: unknown, key = tenant.key, store = tenant.storeId) =>
  call(app, { method: 'PUT', url: URL_PATH, key, store, payload: payload as Record<string, unknown> })
const remove = (app: FastifyInstance, tenant: Tenant, key = tenant.key, store = tenant.storeId) =>
  call(app, { method: 'DELETE', url: URL_PATH, key, store })
const listing = (app: FastifyInstance, tenant: Tenant) =>
  call(app, { method: 'GET', url: '/v1/webhooks/platforms', key: tenant.key, store: tenant.storeId })

t.test('BigCommerce API credentials are stored encrypted and the answer says only when they were set', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, { storeHash: STORE_HASH, accessToken: TOKEN, storefrontUrl: 'https://shop.example.com/' })
  t.equal(res.statusCode, 200)
  t.same(Object.keys(res.json()).sort(), ['apiCredentials', 'platform', 'receiverUrl'])
  t.same(Object.keys(res.json().apiCredentials), ['updatedAt'])
  t.notMatch(res.body, TOKEN)
  t.notMatch(res.body, STORE_HASH)
  const row = await app.db('platform_api_credentials').where({ store_env_id: tenant.storeId }).first()
  t.equal(row.platform, 'bigcommerce')
  t.notMatch(row.credentials_sealed, TOKEN)
  t.notMatch(row.credentials_sealed, STORE_HASH)
})

t.test('the platform listing shows that the credentials are set and when, never their values', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const set = await put(app, tenant, { storeHash: STORE_HASH, accessToken: TOKEN })
  const res = await listing(app, tenant)
  t.equal(res.statusCode, 200)
  t.match(res.json().data, [{
    platform: 'bigcommerce',
    secretSet: false,
    apiCredentials: { updatedAt: set.json().apiCredentials.updatedAt }
  }])
  t.notMatch(res.body, TOKEN)
  t.notMatch(res.body, STORE_HASH)
})

t.test('setting or removing the credentials is in the audit log, without them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, { storeHash: STORE_HASH, accessToken: TOKEN })
  t.equal((await remove(app, tenant)).statusCode, 204)
  const log = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: tenant.key, store: tenant.storeId })
  const actions = log.json().data.map((entry: { action: string }) => entry.action)
  t.ok(actions.includes('platform_webhook.api_credentials_set'))
  t.ok(actions.includes('platform_webhook.api_credentials_removed'))
  t.notMatch(log.body, TOKEN)
  t.notMatch(JSON.stringify(await app.db('audit_log').where({ org_id: tenant.orgId })), TOKEN)
})

t.test('credentials set again replace the first ones', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, { storeHash: STORE_HASH, accessToken: TOKEN })
  await put(app, tenant, { storeHash: 'newhash99', accessToken: `${TOKEN}-rotated` })
  t.equal((await app.db('platform_api_credentials').where({ store_env_id: tenant.storeId })).length, 1)
  t.equal((await listing(app, tenant)).json().data.length, 1)
})

t.test('malformed credentials are refused with a 400 that names the field, and nothing is stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const cases: Array<[string, unknown, string]> = [
    ['upper-case hash', { storeHash: 'ID30H7OHWF', accessToken: TOKEN }, 'storeHash'],
    ['too short a hash', { storeHash: 'ab', accessToken: TOKEN }, 'storeHash'],
    ['a hash with a path in it', { storeHash: 'abc/../x', accessToken: TOKEN }, 'storeHash'],
    ['an over-long hash', { storeHash: 'a'.repeat(65), accessToken: TOKEN }, 'storeHash'],
    ['an empty hash', { storeHash: '', accessToken: TOKEN }, 'storeHash'],
    ['a number for the hash', { storeHash: 12345, accessToken: TOKEN }, 'storeHash'],
    ['too short a token', { storeHash: STORE_HASH, accessToken: 'short-token' }, 'accessToken'],
    ['a token with a space', { storeHash: STORE_HASH, accessToken: 'abcdefghij klmnopqrstuvwxyz' }, 'accessToken'],
    ['a token with a line break', { storeHash: STORE_HASH, accessToken: 'abcdefghijklmnopqrstuvwxyz\r\nX-Evil: 1' }, 'accessToken'],
    ['a token of odd unicode', { storeHash: STORE_HASH, accessToken: 'é'.repeat(30) }, 'accessToken'],
    ['an over-long token', { storeHash: STORE_HASH, accessToken: 'x'.repeat(501) }, 'accessToken'],
    ['a token of 201 characters', { storeHash: STORE_HASH, accessToken: 'x'.repeat(201) }, 'accessToken'],
    ['no token', { storeHash: STORE_HASH }, 'accessToken'],
    ['a script URL', { storeHash: STORE_HASH, accessToken: TOKEN, storefrontUrl: 'javascript:alert(1)' }, 'storefrontUrl'],
    [
      'a URL with credentials',
      { storeHash: STORE_HASH, accessToken: TOKEN, storefrontUrl: 'https://user:pw@shop.example.com' },
      'storefrontUrl'
    ],
    ['a URL with a query', { storeHash: STORE_HASH, accessToken: TOKEN, storefrontUrl: 'https://shop.example.com/?a=1' }, 'storefrontUrl'],
    [
      'an over-long URL',
      { storeHash: STORE_HASH, accessToken: TOKEN, storefrontUrl: `https://shop.example.com/${'a'.repeat(1000)}` },
      'storefrontUrl'
    ],
    ['an unknown field', { storeHash: STORE_HASH, accessToken: TOKEN, clientSecret: 'x' }, 'clientSecret']
  ]
  for (const [name, payload, field] of cases) {
    // A key per case: the cases together would pass a key's per-second request limit.
    const res = await put(app, tenant, payload, (await makeKey(app, tenant, 'admin')).secret)
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().code, 'invalid_request', name)
    t.match(res.json().message, field, name)
  }
  t.equal((await app.db('platform_api_credentials').where({ store_env_id: tenant.storeId })).length, 0)
})

t.test('the credentials follow the role and scope rules of the platform secret', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const readOnly = await makeKey(app, tenant, 'editor', ['webhooks:read'])
  const editor = await makeKey(app, tenant, 'editor', ['webhooks:write'])
  const payload = { storeHash: STORE_HASH, accessToken: TOKEN }
  t.equal((await put(app, tenant, payload, viewer.secret)).json().code, 'role_read_only')
  t.equal((await put(app, tenant, payload, readOnly.secret)).json().code, 'insufficient_scope')
  t.equal((await remove(app, tenant, readOnly.secret)).json().code, 'insufficient_scope')
  const secret = await call(app, {
    method: 'PUT',
    url: '/v1/webhooks/platforms/bigcommerce',
    key: readOnly.secret,
    store: tenant.storeId,
    payload: { secret: 'a-signing-secret' }
  })
  t.equal(secret.json().code, 'insufficient_scope', 'as for the secret')
  t.equal((await put(app, tenant, payload, editor.secret)).statusCode, 200)
})

t.test('removing credentials that are not set is a 404', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await remove(app, tenant)
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})

t.test('one store cannot see, replace or remove another store\'s credentials', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  await put(app, tenant, { storeHash: STORE_HASH, accessToken: TOKEN })
  t.equal(
    (await put(app, other, { storeHash: 'otherhash', accessToken: `${TOKEN}-other` }, other.key, tenant.storeId)).json().code,
    'store_env_not_found'
  )
  t.equal((await remove(app, other, other.key, tenant.storeId)).json().code, 'store_env_not_found')
  t.same((await listing(app, other)).json().data, [])
  t.equal((await remove(app, other)).statusCode, 404, 'the other store has none of its own')
  t.equal((await listing(app, tenant)).json().data.length, 1)
})
