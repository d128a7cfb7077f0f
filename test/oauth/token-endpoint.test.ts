import t from 'tap'
import { connected } from './oauth-helper.js'

/**
 * docs/contract/oauth.md#token-endpoint: a Bearer header on the token endpoint is ignored (Zapier sends the old access
 * token).
 */

async function refreshRequest (base: string, headers: Record<string, string>, body: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(body)
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

t.test('a refresh with the client credentials in the body and the old access token as Bearer rotates the pair', async (t) => {
  const { base, client, tokens, tenant } = await connected(t)
  const res = await refreshRequest(base, { authorization: `Bearer ${tokens.access_token}` }, {
    grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.id, client_secret: client.secret!
  })
  t.equal(res.status, 200, String(res.body.error_description ?? 'ok'))
  t.ok(res.body.access_token)
  t.not(res.body.refresh_token, tokens.refresh_token, 'rotated')
  t.equal(res.body.store_env_id, tenant.storeId)
})

t.test('a Bearer header does not authenticate a client at the token endpoint', async (t) => {
  const { base, client, tokens } = await connected(t)
  const res = await refreshRequest(base, { authorization: `Bearer ${tokens.access_token}` }, {
    grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.id
  })
  t.equal(res.status, 401)
  t.equal(res.body.error, 'invalid_client')
})

t.test('Basic client authentication still works at the token endpoint', async (t) => {
  const { base, client, tokens } = await connected(t)
  const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64')
  const res = await refreshRequest(base, { authorization: `Basic ${basic}` }, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token!
  })
  t.equal(res.status, 200, String(res.body.error_description ?? 'ok'))
  t.ok(res.body.access_token)
})
