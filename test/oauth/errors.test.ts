import t from 'tap'
import * as oidc from 'openid-client'
import { makeTenant } from '../factories.js'
import { call } from '../helper.js'
import { authorize, Browser, connect, discover, makeClient, REDIRECT_URI, serve, tokenRequest } from './oauth-helper.js'

t.test('an authorization request with a redirect URI that does not match exactly is refused', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeClient(app)
  const config = await discover(base, client)
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${REDIRECT_URI}/extra`,
    scope: 'read',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256'
  })
  const res = await new Browser().request(url.href)
  t.equal(res.status, 400)
  t.match(res.text, /invalid_redirect_uri|redirect_uri did not match/)
  t.equal(res.location, null, 'never redirected to an unregistered URI')
})

t.test('an authorization request without PKCE is refused with invalid_request at the client', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeClient(app)
  const config = await discover(base, client)
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'read' })
  const res = await new Browser().request(url.href)
  t.equal(res.status, 303)
  const back = new URL(res.location!)
  t.equal(back.origin + back.pathname, REDIRECT_URI)
  t.equal(back.searchParams.get('error'), 'invalid_request')
  t.match(back.searchParams.get('error_description'), /PKCE|code_challenge/)
})

t.test('a plain PKCE method is refused', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeClient(app)
  const config = await discover(base, client)
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    code_challenge: oidc.randomPKCECodeVerifier(),
    code_challenge_method: 'plain'
  })
  const res = await new Browser().request(url.href)
  t.equal(new URL(res.location!).searchParams.get('error'), 'invalid_request')
})

t.test('a replayed authorization code is refused with invalid_grant', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const { config, callback, verifier } = await connect({
    base,
    client,
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor'
  })
  t.ok(config)
  const code = new URL(callback).searchParams.get('code')!
  const replay = await tokenRequest(base, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier
  })
  t.equal(replay.status, 400)
  t.equal(replay.body.error, 'invalid_grant')
})

t.test('two redemptions of one authorization code at once: one is refused with invalid_grant and the tokens the other got are revoked', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const { callback, verifier } = await authorize({
    base,
    client,
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor'
  })
  const params = {
    grant_type: 'authorization_code',
    code: new URL(callback).searchParams.get('code')!,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier
  }
  const answers = await Promise.all([0, 1].map(() => tokenRequest(base, client, params)))
  t.same(answers.map((a) => a.status).sort(), [200, 400])
  t.equal(answers.find((a) => a.status === 400)!.body.error, 'invalid_grant')
  const issued = answers.find((a) => a.status === 200)!.body
  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: String(issued.access_token), store: tenant.storeId })
  t.equal(api.statusCode, 401, 'the access token the code gave is revoked')
  const refresh = await tokenRequest(base, client, { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token) })
  t.equal(refresh.body.error, 'invalid_grant', '... and its refresh token')
})

t.test('a wrong client secret is refused with invalid_client', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeClient(app)
  const res = await tokenRequest(base, { id: client.id, secret: 'ocs_wrong' }, { grant_type: 'refresh_token', refresh_token: 'anything' })
  t.equal(res.status, 401)
  t.equal(res.body.error, 'invalid_client')
  const post = await tokenRequest(base, { id: client.id, secret: null }, {
    grant_type: 'refresh_token',
    refresh_token: 'anything',
    client_secret: client.secret!
  })
  t.equal(post.body.error, 'invalid_grant', 'client_secret_post authenticates as well (the token itself is unknown)')
})

t.test('a public client completes the flow with PKCE and no secret', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app, { public: true })
  t.equal(client.secret, null)
  const { tokens } = await connect({
    base,
    client,
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'viewer',
    scope: 'read offline_access'
  })
  t.ok(tokens.access_token)
  t.equal(tokens.store_env_id, tenant.storeId)
})

t.test('consent refuses a role above the person\'s own and stores of another organization', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const client = await makeClient(app)
  const err = await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: [other.storeId], role: 'editor' }).catch((
    e: Error
  ) => e)
  t.match(String(err), /expected a redirect to the client, got 400/)
  const err2 = await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: [tenant.storeId], role: 'owner' }).catch((
    e: Error
  ) => e)
  t.match(String(err2), /got 400/)
  const err3 = await connect({ base, client, person: tenant.owner, org: other.orgId, stores: [other.storeId], role: 'editor' }).catch((
    e: Error
  ) => e)
  t.match(String(err3), /got 400/, 'nor an organization the person does not belong to')
})

t.test('a consent form without its CSRF token is refused', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const config = await discover(base, client)
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256'
  })
  const browser = new Browser()
  const page = await browser.follow(url.href)
  const res = await browser.request(page.url + '/login', { form: { email: tenant.owner.email, password: tenant.owner.password } })
  t.equal(res.status, 403)
})
