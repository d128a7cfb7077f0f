import t from 'tap'
import { build, call } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('creating a key returns its svc_ secret once and stores only a hash', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/api-keys',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'CI', role: 'editor' }
  })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body.secret, /^svc_[0-9A-Za-z]{40}$/)
  t.equal(body.prefix, body.secret.slice(0, 12))
  const row = await app.db('api_keys').where({ id: body.id }).first()
  t.not(row.secret_hash, body.secret)
  t.notOk(JSON.stringify(row).includes(body.secret), 'the secret is nowhere in the row')
  const listed = await call(app, { method: 'GET', url: '/v1/api-keys', key: tenant.key, store: tenant.storeId })
  t.notOk(listed.body.includes(body.secret), 'the list never shows it')
})
