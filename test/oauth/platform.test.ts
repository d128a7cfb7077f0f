import t from 'tap'
import Fastify from 'fastify'
import oauth2, { type OAuth2Namespace } from '@fastify/oauth2'
import cookie from '@fastify/cookie'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { oauthClients } from '../../src/modules/connectors/connections/oauth-clients.repository.js'
import { Browser, csrfOf, freePort, serve } from './oauth-helper.js'

/**
 * The automation platform's side of the dance, played by @fastify/oauth2: it discovers our issuer, redirects the
 * browser with state and a PKCE challenge, and redeems the code at /oauth/token with its client secret.
 */
t.test('an automation platform built on @fastify/oauth2 connects and calls the API', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const platformPort = await freePort()
  const platformBase = `http://127.0.0.1:${platformPort}`
  const client = await oauthClients(app.db, app.clock).create({ name: 'Platform', redirectUris: [`${platformBase}/callback`] })

  const platform = Fastify()
  t.teardown(() => platform.close())
  await platform.register(cookie)
  await platform.register(oauth2, {
    name: 'evidenceHub',
    scope: ['reviews:read', 'offline_access'],
    credentials: { client: { id: client.clientId, secret: client.clientSecret! } },
    discovery: { issuer: `${base}/oauth` },
    startRedirectPath: '/login',
    callbackUri: `${platformBase}/callback`,
    pkce: 'S256'
  })
  platform.get('/callback', async function (request, reply) {
    const { token } = await (this as unknown as { evidenceHub: OAuth2Namespace }).evidenceHub.getAccessTokenFromAuthorizationCodeFlow(
      request,
      reply
    )
    return token
  })
  await platform.listen({ port: platformPort, host: '127.0.0.1' })

  const browser = new Browser()
  const start = await browser.request(`${platformBase}/login`)
  t.ok(start.location?.startsWith(`${base}/oauth/auth?`), 'the platform sends the browser to our authorization endpoint')
  t.equal(new URL(start.location!).searchParams.get('code_challenge_method'), 'S256')
  const login = await browser.follow(start.location!)
  const consent = await browser.follow(login.url + '/login', {
    form: { _csrf: csrfOf(login.text), email: tenant.owner.email, password: tenant.owner.password }
  })
  const done = await browser.follow(consent.url + '/consent', {
    form: { _csrf: csrfOf(consent.text), org: tenant.orgId, stores: tenant.storeId, role: 'viewer' }
  })
  t.ok(done.location?.startsWith(`${platformBase}/callback?`))
  const callback = await browser.request(done.location!)
  t.equal(callback.status, 200, 'the platform redeemed the code')
  const token = JSON.parse(callback.text)
  t.equal(token.store_env_id, tenant.storeId)
  t.ok(token.refresh_token)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: token.access_token, store: token.store_env_id })
  t.equal(res.statusCode, 200)
})
