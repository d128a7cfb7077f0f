import t from 'tap'
import { decodeProtectedHeader } from 'jose'
import { build, call } from '../helper.js'
import { rotateSigningKeys } from '../../oauth/keys.js'
import { removeExpiredModels } from '../../oauth/adapter.js'
import { connected } from './oauth-helper.js'

t.test('signing keys are kept encrypted in the database and published without their private parts', async (t) => {
  const { app, base } = await connected(t)
  const rows = await app.db('oidc_keys').select()
  t.ok(rows.length >= 1)
  for (const row of rows) t.notOk(row.sealed_jwk.includes('"d"'), 'the private key is sealed')
  const jwks = await (await fetch(`${base}/oauth/jwks`)).json() as { keys: Array<Record<string, unknown>> }
  t.ok(jwks.keys.length >= 1)
  t.notOk(jwks.keys.some((k) => 'd' in k || 'p' in k), 'no private parts in the JWKS')
})

t.test('after a key rotation new tokens use the new key and tokens signed with the old key still verify', async (t) => {
  const { app, base, port, tokens, tenant } = await connected(t)
  const oldKid = decodeProtectedHeader(tokens.access_token).kid
  const { kid } = await rotateSigningKeys(app.db, app.config.secretKey, app.clock())
  t.not(kid, oldKid)
  const restarted = await build(t, { config: { port, publicUrl: base } })
  const res = await call(restarted, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 200, 'an instance started after the rotation accepts the old key\'s token')
  const jwks = await restarted.inject({ method: 'GET', url: '/oauth/jwks' })
  const kids = jwks.json().keys.map((k: { kid: string }) => k.kid)
  t.equal(kids[0], kid, 'the new key is first, so it signs')
  t.ok(kids.includes(oldKid), 'the old key stays published')
})

t.test('expired provider rows are removed by the cleanup', async (t) => {
  const app = await build(t)
  // Long before any other test's clock, so this cleanup removes no row another test (same database) still needs;
  // the live row outlasts refresh.test.ts's cleanup, which runs at 2000-01-02.
  const now = Date.parse('1990-01-01T00:00:00Z') + Math.floor(Math.random() * 1e6)
  await app.db('oidc_models').insert([
    { model: 'Session', id_hash: `expired-${now}`.padEnd(64, '0').slice(0, 64), payload: '{}', expires_at: now - 1000 },
    { model: 'Session', id_hash: `live-${now}`.padEnd(64, '0').slice(0, 64), payload: '{}', expires_at: Date.parse('2200-01-01T00:00:00Z') }
  ])
  await removeExpiredModels(app.db, now)
  const left = await app.db('oidc_models').whereIn('id_hash', [
    `expired-${now}`.padEnd(64, '0').slice(0, 64),
    `live-${now}`.padEnd(64, '0').slice(0, 64)
  ]).pluck('id_hash')
  t.same(left, [`live-${now}`.padEnd(64, '0').slice(0, 64)])
})
