import t from 'tap'
import * as oidc from 'openid-client'
import { call, manualClock } from '../helper.js'
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

t.test('a refresh grant reads the grant, its connection, membership and person in one query: six statements in all', async (t) => {
  const { app, config, tokens } = await connected(t)
  const statements: string[] = []
  const count = (query: { sql: string }) => { statements.push(query.sql) }
  app.db.on('query', count)
  t.teardown(() => { app.db.off('query', count) })
  const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
  t.ok(next.access_token)
  // client, refresh token, grant (+ connection, membership, client, person), consume, successor, rotation record
  t.equal(statements.length, 6, statements.join('\n'))
  t.equal(statements.filter((sql) => /\bpeople\b/.test(sql)).length, 1, 'the person comes with the grant')
})
