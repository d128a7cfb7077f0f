import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

t.test('one tenant\'s key list never shows another tenant\'s keys', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const theirKey = await makeKey(app, theirs, 'editor')
  const res = await call(app, { method: 'GET', url: '/v1/api-keys?limit=100', key: mine.key, store: mine.storeId })
  t.equal(res.statusCode, 200)
  const ids = res.json().data.map((k: { id: string }) => k.id)
  t.notOk(ids.includes(theirKey.id))
  t.equal(res.json().meta.total, 1, 'only the tenant\'s own bootstrap key')
})

t.test('one tenant cannot read another tenant\'s key by id', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const theirKey = await makeKey(app, theirs, 'editor')
  const res = await call(app, { method: 'GET', url: `/v1/api-keys/${theirKey.id}`, key: mine.key, store: mine.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})

t.test('one tenant cannot revoke another tenant\'s key', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const theirKey = await makeKey(app, theirs, 'editor')
  const res = await call(app, { method: 'DELETE', url: `/v1/api-keys/${theirKey.id}`, key: mine.key, store: mine.storeId })
  t.equal(res.statusCode, 404)
  const row = await app.db('api_keys').where({ id: theirKey.id }).first()
  t.equal(row.revoked_at, null)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/account/members', key: theirKey.secret, store: theirs.storeId })).statusCode,
    200,
    'their key still works'
  )
  t.equal((await app.db('audit_log').where({ action: 'api_key.revoked', subject: `api_key:${theirKey.id}` })).length, 0)
})

t.test('a key is bound to its organization: it cannot act on another tenant\'s store', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: mine.key,
    store: theirs.storeId,
    payload: { name: 'x', role: 'viewer' }
  })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
  t.equal((await app.db('api_keys').where({ org_id: theirs.orgId })).length, 1)
})

t.test('a revoke of an unknown key id gets 404 not_found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'DELETE', url: '/v1/api-keys/key_missing', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'not_found')
})
