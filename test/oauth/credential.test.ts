import t from 'tap'
import { SignJWT, generateKeyPair, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose'
import { decrypt } from '../../src/lib/secrets.js'
import { call, manualClock } from '../helper.js'
import { addMember, makeStore } from '../factories.js'
import { connect, connected, makeClient, serve } from './oauth-helper.js'

t.test('a token used against a store outside its grant gets 404 store_env_not_found', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const other = await makeStore(app, tenant)
  const res = await call(app, { method: 'GET', url: '/v1/connectors/connections', key: tokens.access_token, store: other })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
  const inGrant = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.same(inGrant.json().data.map((s: { id: string }) => s.id), [tenant.storeId], 'the token sees only its grant\'s stores')
})

t.test('removing the person from the organization stops their token on the next request', async (t) => {
  const { app, base } = await serve(t)
  const { makeTenant } = await import('../factories.js')
  const tenant = await makeTenant(app)
  const member = await addMember(app, tenant, 'admin')
  const client = await makeClient(app)
  const { tokens } = await connect({ base, client, person: member, org: tenant.orgId, stores: [tenant.storeId], role: 'editor' })
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode, 200)
  const removed = await call(app, { method: 'DELETE', url: `/v1/account/members/${member.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(removed.statusCode, 204)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('a person demoted below the grant\'s role loses the connection', async (t) => {
  const { app, base } = await serve(t)
  const { makeTenant } = await import('../factories.js')
  const tenant = await makeTenant(app)
  const member = await addMember(app, tenant, 'admin')
  const { tokens } = await connect({
    base,
    client: await makeClient(app),
    person: member,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'admin'
  })
  t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })).statusCode, 200)
  // Through the service the admin pages use, after the token has been served (and cached) once.
  const owner = {
    type: 'person' as const,
    id: tenant.owner.id,
    orgId: tenant.orgId,
    role: 'owner' as const,
    scopes: [],
    personId: tenant.owner.id,
    storeIds: null
  }
  await app.services.account.changeRole(owner, member.id, 'editor', null)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 401)
})

t.test('revoking the connection stops its access token on the next request and is audited', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const grantId = decodeJwt(tokens.access_token).grant_id as string
  const revoked = await call(app, {
    method: 'DELETE',
    url: `/v1/connectors/connections/${grantId}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(revoked.statusCode, 204)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
  const models = await app.db('oidc_models').where({ grant_id: grantId }).count<Array<{ n: number }>>({ n: '*' })
  t.equal(Number(models[0].n), 0, 'every token of the grant is gone')
  const audit = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: tenant.key, store: tenant.storeId })
  const actions = audit.json().data.map((e: { action: string }) => e.action)
  t.ok(actions.includes('oauth.connection_created'))
  t.ok(actions.includes('oauth.connection_revoked'))
})

t.test('a tampered access token is refused with 401 invalid_credentials', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const [header, payload, signature] = tokens.access_token.split('.')
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  claims.role = 'admin'
  const tampered = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.')
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tampered, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('an expired access token is refused with 401 invalid_credentials', async (t) => {
  const clock = manualClock(Date.now())
  const { app, tokens, tenant } = await connected(t, { clock })
  clock.advance(2 * 3600_000)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('a token accepted before it expired is refused once it has', async (t) => {
  const clock = manualClock(Date.now())
  const { app, tokens, tenant } = await connected(t, { clock })
  const use = () => call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal((await use()).statusCode, 200)
  clock.set(decodeJwt(tokens.access_token).exp! * 1000)
  const res = await use()
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
})

t.test('access tokens are signed ES256 and ID tokens RS256, each with a published key', async (t) => {
  const { base, tokens } = await connected(t, { scope: 'openid reviews:read offline_access' })
  const jwks = await (await fetch(`${base}/oauth/jwks`)).json() as { keys: Array<{ kid: string, alg: string, kty: string }> }
  const access = decodeProtectedHeader(tokens.access_token)
  t.equal(access.alg, 'ES256')
  t.equal(jwks.keys.find((k) => k.kid === access.kid)?.kty, 'EC')
  const id = decodeProtectedHeader((tokens as { id_token?: string }).id_token ?? '')
  t.equal(id.alg, 'RS256', 'OpenID Connect\'s default, which every client accepts')
  t.equal(jwks.keys.find((k) => k.kid === id.kid)?.kty, 'RSA')
})

t.test('an access token signed RS256 by our own key, as before ES256, is still accepted', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const rows: Array<{ sealed_jwk: string }> = await app.db('oidc_keys').whereNull('retired_at').select('sealed_jwk')
  const rsa = rows.map((r) => JSON.parse(decrypt(r.sealed_jwk, app.config.secretKey)) as JWK).find((k) => k.alg === 'RS256')!
  const earlier = await new SignJWT(decodeJwt(tokens.access_token))
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: rsa.kid }).sign(await importJWK(rsa, 'RS256'))
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: earlier, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})

t.test('a token from another issuer is refused with 401 invalid_credentials', async (t) => {
  const { app, base, tokens, tenant } = await connected(t)
  const claims = decodeJwt(tokens.access_token)
  const { privateKey } = await generateKeyPair('RS256')
  const forged = await new SignJWT({ ...claims, iss: 'https://evil.example/oauth' })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'evil' }).sign(privateKey)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: forged, store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'invalid_credentials')
  const sameIssuer = await new SignJWT({ ...claims, iss: `${base}/oauth` })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'evil' }).sign(privateKey)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/account/stores', key: sameIssuer, store: tenant.storeId })).statusCode,
    401,
    'nor one signed with a key that is not ours'
  )
})
