import t from 'tap'
import { connected } from '../oauth/oauth-helper.js'
import { callTool, connectClient, errorOf, toolNames } from './mcp-client.js'

function textOf (content: { uri: string }): string {
  return 'text' in content ? String(content.text) : ''
}

t.test('an OAuth access token connects, and its tools leave out org-level management', async (t) => {
  const { base, tenant, tokens } = await connected(t, { role: 'editor', scope: 'reviews:read products:write' })
  const client = await connectClient(t, base, tokens.access_token, tenant.storeId)
  const names = await toolNames(client)
  t.ok(names.includes('upsert_products') && names.includes('list_reviews'))
  t.notOk(names.some((name) => name.endsWith('api_key')), 'no API key tools for a token')
  t.notOk(names.includes('list_orders'), 'held to its scopes')
  const res = await callTool(client, 'upsert_products', { products: [{ platformProductId: 'o1' }] })
  t.match(res.structuredContent, { upserted: 1 })
  t.equal(errorOf(await callTool(client, 'list_orders')).code, 'insufficient_scope')
})

t.test('without a credential /mcp answers 401 naming the resource metadata, which names the issuer', async (t) => {
  const { base } = await connected(t)
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  })
  t.equal(res.status, 401)
  t.equal((await res.json() as { code: string }).code, 'missing_credentials')
  const challenge = res.headers.get('www-authenticate') ?? ''
  const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1]
  t.ok(url, challenge)
  const metadata = await (await fetch(url!)).json() as { resource: string, authorization_servers: string[] }
  t.equal(metadata.resource, `${base}/mcp`)
  t.same(metadata.authorization_servers, [`${base}/oauth`])
  const root = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()
  t.same(root, metadata)
})

t.test('a bad token answers 401 invalid_credentials with error="invalid_token" in the challenge', async (t) => {
  const { base } = await connected(t)
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer svc_notakeynotakeynotakeynotakeynotakey',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream'
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  })
  t.equal(res.status, 401)
  t.equal((await res.json() as { code: string }).code, 'invalid_credentials')
  t.match(res.headers.get('www-authenticate'), /error="invalid_token"/)
})

t.test('the OpenAPI document and the changelog are resources', async (t) => {
  const { base, tenant, tokens } = await connected(t)
  const client = await connectClient(t, base, tokens.access_token, tenant.storeId)
  const { resources } = await client.listResources()
  t.same(resources.map((r) => r.name).sort(), ['changelog', 'openapi'])
  const openapi = await client.readResource({ uri: `${base}/v1/openapi.json` })
  const doc = JSON.parse(textOf(openapi.contents[0])) as { openapi: string }
  t.equal(doc.openapi, '3.1.0')
  const changelog = await client.readResource({ uri: `${base}/docs/changelog.md` })
  t.match(textOf(changelog.contents[0]), /# API changelog/)
})

t.test('GET and DELETE on /mcp answer 405 method_not_allowed: the server keeps no sessions', async (t) => {
  const { base } = await connected(t)
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${base}/mcp`, { method })
    t.equal(res.status, 405, method)
    t.equal((await res.json() as { code: string }).code, 'method_not_allowed')
  }
})
