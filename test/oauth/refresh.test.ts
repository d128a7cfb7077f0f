import t from 'tap'
import * as oidc from 'openid-client'
import { call, manualClock, statementsOf } from '../helper.js'
import { removeExpiredModels } from '../../oauth/adapter.js'
import { sha256 } from '../../src/lib/secrets.js'
import { connected } from './oauth-helper.js'

t.test('a refresh rotates the pair; a retry inside the grace period gets the same new pair; after it the old token is refused and the grant revoked', async (t) => {
  const clock = manualClock(Date.now())
  const { app, config, tokens, tenant } = await connected(t, { clock })
  const first = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  t.not(first.refresh_token, tokens.refresh_token, 'rotated')
  t.equal(first.store_env_id, tenant.storeId, 'the refresh response carries store_env_id too')

  clock.advance(10_000)
  const retried = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  t.equal(retried.refresh_token, first.refresh_token, 'a retry inside the grace gets the same refresh token')
  t.equal(retried.access_token, first.access_token, '... and the same access token')

  clock.advance(25_000)
  const refused = await oidc.refreshTokenGrant(config, tokens.refresh_token!).catch((err: unknown) => err)
  t.ok(refused instanceof oidc.ResponseBodyError)
  t.equal((refused as oidc.ResponseBodyError).error, 'invalid_grant')

  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: first.access_token, store: tenant.storeId })
  t.equal(api.statusCode, 401, 'reuse after the grace revokes the grant and its tokens')
  const again = await oidc.refreshTokenGrant(config, first.refresh_token!).catch((err: unknown) => err)
  t.equal((again as oidc.ResponseBodyError).error, 'invalid_grant', 'the newest refresh token died with the grant')
})

t.test('a rotated refresh token keeps working for 90 days from its last use', async (t) => {
  const { config, tokens } = await connected(t)
  const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  const introspected = await oidc.tokenIntrospection(config, next.refresh_token!)
  t.equal(introspected.active, true)
  const lifetime = Number(introspected.exp) - Math.floor(Date.now() / 1000)
  t.ok(lifetime > 89 * 86_400 && lifetime <= 90 * 86_400, `lifetime ${lifetime}s is 90 days from this use`)
})

t.test('a refresh grant reads the token with its grant, connection, membership and person in one query, and not the client the instance has read: three statements in all', async (t) => {
  const { app, config, tokens } = await connected(t)
  const statements = statementsOf(t, app)
  const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  t.ok(next.access_token)
  // refresh token (+ its rotation record, grant, connection, membership, client, person), successor, rotation
  // record (which consumes the old token); the client was read by the code exchange before
  t.equal(statements.length, 3, statements.join('\n'))
  t.equal(statements.filter((sql) => /from [`"]?oauth_clients[`"]? where/i.test(sql)).length, 0, 'the client is not read again')
  t.equal(statements.filter((sql) => /\bpeople\b/.test(sql)).length, 1, 'the person comes with the grant')
})

t.test('a grant whose row does not carry its own id (written before rows did) is read on its own, and the refresh still rotates', async (t) => {
  const { app, config, tokens } = await connected(t)
  const { grant_id: grantId } = await app.db('oidc_models').where({ model: 'RefreshToken', id_hash: sha256(tokens.refresh_token!) }).first(
    'grant_id'
  )
  t.equal(
    await app.db('oidc_models').where({ model: 'Grant', grant_id: grantId }).update({ grant_id: null }),
    1,
    'the grant\'s row carried its id'
  )
  const statements = statementsOf(t, app)
  const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  t.ok(next.access_token)
  t.equal(statements.length, 4, statements.join('\n'))
  t.equal(statements.filter((sql) => /\bpeople\b/.test(sql)).length, 2, 'the grant\'s own read joins the person again')
})

t.test('two refreshes of one token sent at once both get the same new pair, and only that pair\'s refresh token goes on', async (t) => {
  const { config, tokens } = await connected(t)
  const [a, b] = await Promise.all([0, 1].map(() => oidc.refreshTokenGrant(config, tokens.refresh_token!)))
  t.equal(a.refresh_token, b.refresh_token)
  t.equal(a.access_token, b.access_token)
  const next = await oidc.refreshTokenGrant(config, a.refresh_token!)
  t.not(next.refresh_token, a.refresh_token, 'the shared refresh token rotates')
})

t.test('a rotated refresh token stays spent after its rotation record is cleared a day later: reusing it ends the grant', async (t) => {
  // Years before any other test's clock, so the cleanup a day after this rotation clears no other test's rows (they
  // share the database); keys.test.ts's cleanup runs earlier still, at 1990.
  const clock = manualClock(Date.parse('2000-01-01T00:00:00Z'))
  const { app, config, tokens, tenant } = await connected(t, { clock })
  const first = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  clock.advance(86_400_001)
  await removeExpiredModels(app.db, clock())
  t.notOk(await app.db('oauth_refresh_rotations').where({ old_token_hash: sha256(tokens.refresh_token!) }).first(), 'the record is gone')

  const reused = await oidc.refreshTokenGrant(config, tokens.refresh_token!).catch((err: unknown) => err)
  t.equal((reused as oidc.ResponseBodyError).error, 'invalid_grant')
  const again = await oidc.refreshTokenGrant(config, first.refresh_token!).catch((err: unknown) => err)
  t.equal((again as oidc.ResponseBodyError).error, 'invalid_grant', 'the reuse revoked the grant')
  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: first.access_token, store: tenant.storeId })
  t.equal(api.statusCode, 401)
})

t.test('a rotated refresh token introspects as inactive', async (t) => {
  const { config, tokens } = await connected(t)
  await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  const introspected = await oidc.tokenIntrospection(config, tokens.refresh_token!)
  t.equal(introspected.active, false)
})
