import t from 'tap'
import * as oidc from 'openid-client'
import { call } from '../helper.js'
import { connected } from './oauth-helper.js'

t.test('introspection reports a refresh token active and, once revoked (RFC 7009), inactive', async (t) => {
  const { app, config, tokens, tenant } = await connected(t)
  const before = await oidc.tokenIntrospection(config, tokens.refresh_token!)
  t.equal(before.active, true)
  t.equal(before.client_id, config.clientMetadata().client_id)
  await oidc.tokenRevocation(config, tokens.refresh_token!)
  const after = await oidc.tokenIntrospection(config, tokens.refresh_token!)
  t.equal(after.active, false)
  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(api.statusCode, 401, 'revoking the refresh token revokes the grant, so its access tokens stop too')
  t.equal(api.json().code, 'invalid_credentials')
})

t.test('another client cannot introspect or revoke a client\'s tokens', async (t) => {
  const { app, base, config, tokens } = await connected(t)
  const { discover, makeClient } = await import('./oauth-helper.js')
  const other = await discover(base, await makeClient(app))
  const seen = await oidc.tokenIntrospection(other, tokens.refresh_token!)
  t.equal(seen.active, false)
  const refused = await oidc.tokenRevocation(other, tokens.refresh_token!).catch((err: unknown) => err)
  t.ok(refused instanceof oidc.ResponseBodyError, 'revocation by another client is refused')
  t.equal((await oidc.tokenIntrospection(config, tokens.refresh_token!)).active, true)
})
