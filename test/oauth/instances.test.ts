import t from 'tap'
import * as oidc from 'openid-client'
import { build, call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { Browser, csrfOf, discover, makeClient, REDIRECT_URI, serve } from './oauth-helper.js'

t.test('two instances sharing the database complete a flow started on the other, and a restart loses no connection', async (t) => {
  const a = await serve(t)
  // Instance B serves the same PUBLIC_URL (as behind a load balancer) from another port.
  const b = await build(t, { config: { port: a.port, publicUrl: a.base } })
  await b.listen({ port: 0, host: '127.0.0.1' })
  const bBase = `http://127.0.0.1:${(b.server.address() as { port: number }).port}`
  const onB = (url: string) => url.replace(a.base, bBase)

  const tenant = await makeTenant(a.app)
  const client = await makeClient(a.app)
  const config = await discover(a.base, client)
  const verifier = oidc.randomPKCECodeVerifier()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'read offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256'
  })
  const browser = new Browser()
  const login = await browser.follow(url.href) // on A
  let res = await browser.request(onB(login.url + '/login'), {
    form: { _csrf: csrfOf(login.text), email: tenant.owner.email, password: tenant.owner.password }
  })
  while (res.location && !res.location.startsWith(REDIRECT_URI)) res = await browser.request(onB(res.location)) // on B
  t.match(res.text, /name="stores"/, 'B shows the consent page of an interaction A started')
  const uid = /action="\/oauth\/interaction\/([^/]+)\/consent"/.exec(res.text)![1]
  res = await browser.request(`${a.base}/oauth/interaction/${uid}/consent`, {
    form: { _csrf: csrfOf(res.text), org: tenant.orgId, stores: tenant.storeId, role: 'editor' }
  }) // back on A
  while (res.location && !res.location.startsWith(REDIRECT_URI)) res = await browser.request(onB(res.location))
  t.ok(res.location?.startsWith(REDIRECT_URI))
  // code from B, redeemed on A
  const tokens = await oidc.authorizationCodeGrant(config, new URL(res.location!), { pkceCodeVerifier: verifier, idTokenExpected: false })
  t.equal(
    (await call(b, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode,
    200,
    'B accepts A\'s token'
  )

  await a.app.close()
  const restarted = await serve(t, { port: a.port })
  const refreshed = await oidc.refreshTokenGrant(await discover(restarted.base, client), tokens.refresh_token!)
  t.ok(refreshed.access_token, 'the connection survives a restart')
  t.equal(
    (await call(restarted.app, { method: 'GET', url: '/v1/account/stores', key: refreshed.access_token, store: tenant.storeId }))
      .statusCode,
    200
  )
})
