import t from 'tap'
import { manualClock } from '../../../test/helper.js'
import { ACCESS_TOKEN_TTL_S } from '../../../oauth/provider.js'
import { App, append, appTester, createAppTester } from './harness.js'
import { connectZapier } from './oauth-harness.js'

t.test('connecting through login and consent yields tokens and the store, and the connection test names both', async (t) => {
  const { tenant, authData } = await connectZapier(t)
  t.match(authData, { access_token: String, refresh_token: String, store_env_id: tenant.storeId })
  const me = await appTester(App.authentication.test, { authData })
  t.match(me, {
    organization: { id: tenant.orgId },
    storeEnv: { id: tenant.storeId },
    credential: { type: 'oauth', role: 'editor', person: { email: tenant.owner.email } }
  })
  t.ok(me.credential.scopes.includes('reviews:read'))
  t.equal(await appTester(App.authentication.connectionLabel, { authData, inputData: me }), `${me.organization.name} – Main store`)
})

t.test('after the access token expires the app is told to refresh, and the refreshed tokens poll again', async (t) => {
  const clock = manualClock(Date.now())
  const { app, tenant, authData } = await connectZapier(t, { clock })
  const event = await append(app, tenant, 'review.created', { id: 'rev_1', rating: 5 })

  clock.set(Date.now() + (ACCESS_TOKEN_TTL_S + 1) * 1000)
  await t.rejects(appTester(App.triggers.new_review.operation.perform, { authData }), { name: 'RefreshAuthError' })

  // The provider stamps new tokens with the wall clock; the service's clock rejoins it for the refreshed pair.
  clock.set(Date.now())
  const refreshed = await appTester(App.authentication.oauth2Config.refreshAccessToken, { authData })
  t.not(refreshed.access_token, authData.access_token)
  t.not(refreshed.refresh_token, authData.refresh_token, 'the refresh token rotated')
  t.equal(refreshed.store_env_id, tenant.storeId)
  const items = await appTester(App.triggers.new_review.operation.perform, { authData: refreshed })
  t.same(items.map((item: { id: string }) => item.id), [event.id])
})

t.test('a refresh with a dead refresh token asks the user to reconnect', async (t) => {
  const { authData } = await connectZapier(t)
  await t.rejects(
    appTester(App.authentication.oauth2Config.refreshAccessToken, { authData: { ...authData, refresh_token: 'not-a-refresh-token' } }),
    { name: 'ExpiredAuthError' }
  )
})

t.test('a revoked connection fails the connection test and cannot be refreshed', async (t) => {
  const { app, tenant, authData } = await connectZapier(t)
  const headers = { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
  const [connection] = (await app.inject({ url: '/v1/connectors/connections', headers })).json().data
  t.equal((await app.inject({ method: 'DELETE', url: `/v1/connectors/connections/${connection.id}`, headers })).statusCode, 204)
  await t.rejects(appTester(App.authentication.test, { authData }), { name: 'RefreshAuthError' })
  await t.rejects(appTester(App.authentication.oauth2Config.refreshAccessToken, { authData }), { name: 'ExpiredAuthError' })
})

t.test('a refresh sent the way Zapier\'s usual template sends it (old access token as Bearer, client credentials in the body) rotates the tokens', async (t) => {
  const { tenant, authData } = await connectZapier(t)
  // Zapier's OAuth2 template puts `Authorization: Bearer <access_token>` on every request, the token endpoint's too.
  const includeBearerToken = (
    request: { headers: Record<string, string> },
    _z: unknown,
    bundle: { authData: { access_token?: string } }
  ) => {
    if (bundle.authData.access_token) request.headers.Authorization = `Bearer ${bundle.authData.access_token}`
    return request
  }
  const templateTester = createAppTester({ ...App, beforeRequest: [...App.beforeRequest, includeBearerToken] })
  const refreshed = await templateTester(App.authentication.oauth2Config.refreshAccessToken, { authData })
  t.not(refreshed.refresh_token, authData.refresh_token, 'the refresh token rotated')
  t.equal(refreshed.store_env_id, tenant.storeId)
  const me = await appTester(App.authentication.test, { authData: refreshed })
  t.match(me, { organization: { id: tenant.orgId }, credential: { type: 'oauth' } })
})
