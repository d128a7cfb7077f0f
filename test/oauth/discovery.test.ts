import t from 'tap'
import { sharedApp } from '../helper.js'

t.test('discovery names the issuer, PKCE S256, both secret auth methods, revocation and introspection', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/oauth/.well-known/openid-configuration' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.issuer, `${app.config.publicUrl}/oauth`)
  t.equal(doc.authorization_endpoint, `${app.config.publicUrl}/oauth/auth`)
  t.equal(doc.token_endpoint, `${app.config.publicUrl}/oauth/token`)
  t.equal(doc.revocation_endpoint, `${app.config.publicUrl}/oauth/token/revocation`)
  t.equal(doc.introspection_endpoint, `${app.config.publicUrl}/oauth/token/introspection`)
  t.same(doc.code_challenge_methods_supported, ['S256'])
  t.ok(doc.token_endpoint_auth_methods_supported.includes('client_secret_basic'))
  t.ok(doc.token_endpoint_auth_methods_supported.includes('client_secret_post'))
  t.same(doc.response_types_supported, ['code'])
})

t.test('the OpenAPI document lists the connection and client routes but not the login screens', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' })
  t.equal(res.statusCode, 200)
  const paths = Object.keys(res.json().paths)
  t.ok(paths.includes('/v1/connectors/connections'))
  t.ok(paths.includes('/v1/connectors/oauth-clients'))
  t.notOk(paths.some((p) => p.startsWith('/oauth')))
})
