import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { build, call, probeRoutes, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import { baseOf, callTool, connectClient, errorOf, toolNames } from './mcp-client.js'
import { roleAllows, type Access, type Resource } from '../../src/lib/permissions.js'

/** `GET /v1/products/{platformProductId}` in the OpenAPI document is `GET /v1/products/:platformProductId` on the route. */
function routeOf (method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`
}

/** Writes no key can make: billing and orgs are read-only for admins, and owner authority is never put in a key. */
const OWNER_WRITES = /^\/v1\/(billing|orgs)\//

/** One POST to /mcp as a raw JSON-RPC client sends it (the SDK's client never sends a batch or a malformed body). */
function post (app: FastifyInstance, tenant: Tenant, payload: string, protocolVersion?: string) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${tenant.key}`,
    'x-store-env-id': tenant.storeId,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json'
  }
  if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion
  return app.inject({ method: 'POST', url: '/mcp', headers, payload })
}

const toolsList = (count: number) =>
  JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })))

t.test('every credential operation of the OpenAPI document has a tool for an admin key, but the owner\'s writes', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const operations = new Set((await client.listTools()).tools.map((tool) => tool._meta?.['evidence-hub/operation']))
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, { security?: unknown[], responses: Record<string, unknown>, 'x-scope'?: string }>>
  }
  let checked = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      // Storefront and public routes document no 401: they take no credential and are not agent tools.
      if (method === 'parameters' || !op.responses['401'] || !path.startsWith('/v1/')) continue
      if (op.security?.length === 0) continue
      if (method !== 'get' && OWNER_WRITES.test(path)) {
        t.notOk(operations.has(routeOf(method, path)), `${method.toUpperCase()} ${path} is hidden from an admin key`)
        continue
      }
      // Owner-only operations (organization writes such as partner grants) are no key's: keys are never owner.
      const [resource, access] = (op['x-scope'] ?? '').split(':')
      if (resource && roleAllows('admin', resource as Resource, access as Access) !== 'allowed') continue
      checked++
      t.ok(operations.has(routeOf(method, path)), `${method.toUpperCase()} ${path} has a tool`)
    }
  }
  t.ok(checked > 30, `${checked} operations checked`)
})

t.test('each tool is named as its operation\'s operationId in the OpenAPI document', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, { operationId?: string }>>
  }
  const idOf = new Map(
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [routeOf(method, path), op.operationId]))
  )
  const tools = (await client.listTools()).tools
  t.ok(tools.length > 30)
  for (const tool of tools) t.equal(tool.name, idOf.get(String(tool._meta?.['evidence-hub/operation'])), tool.name)
})

t.test('a route added later gets its tools without being listed anywhere', async (t) => {
  const app = await build(t, { routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const names = await toolNames(client)
  t.ok(names.includes('list_reviews_probe'), 'GET /v1/reviews/probe')
  t.ok(names.includes('create_reviews_probe'), 'POST /v1/reviews/probe')
  t.same((await callTool(client, 'create_reviews_probe')).structuredContent, { ok: true })
})

t.test('a tool call answers exactly what the same REST call answers', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const upserted = await callTool(client, 'upsert_products', {
    products: [{ platformProductId: 'p1', title: 'Mug' }, { platformProductId: 'p2' }]
  })
  t.equal(upserted.isError, undefined)
  t.match(upserted.structuredContent, { received: 2, upserted: 2, failed: 0 })
  const listed = await callTool(client, 'list_products', { limit: 1 })
  const rest = await call(app, { method: 'GET', url: '/v1/products?limit=1', key: tenant.key, store: tenant.storeId })
  t.same(listed.structuredContent, rest.json())
  const one = await callTool(client, 'get_product', { platformProductId: 'p1' })
  t.equal((one.structuredContent as { title: string }).title, 'Mug')
})

t.test('masking is the REST masking: a key secret shows once on creation and never in the list', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const created = await callTool(client, 'create_api_key', { name: 'agent-made', role: 'viewer' })
  const secret = (created.structuredContent as { secret: string }).secret
  t.match(secret, /^svc_/)
  const listed = await callTool(client, 'list_api_keys', { limit: 100 })
  const rest = await call(app, { method: 'GET', url: '/v1/api-keys?limit=100', key: tenant.key, store: tenant.storeId })
  t.same(listed.structuredContent, rest.json())
  t.notOk(JSON.stringify(listed).includes(secret), 'the secret is not in the tool result')
})

t.test('a viewer key sees no write tools, and a forced write answers role_read_only', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const client = await connectClient(t, await baseOf(app), viewer.secret, tenant.storeId)
  const tools = (await client.listTools()).tools
  t.ok(tools.some((tool) => tool.name === 'list_reviews'))
  t.same(tools.filter((tool) => !tool.annotations?.readOnlyHint).map((tool) => tool.name), [], 'only read tools')
  t.notOk(tools.some((tool) => tool.name === 'list_api_keys'), 'nor reads the role forbids')
  const forced = await callTool(client, 'upsert_products', { products: [{ platformProductId: 'p1' }] })
  t.equal(forced.isError, true)
  t.equal(errorOf(forced).code, 'role_read_only')
})

t.test('a scoped key lists and calls only what its scopes allow', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const scoped = await makeKey(app, tenant, 'editor', ['reviews:read'])
  const client = await connectClient(t, await baseOf(app), scoped.secret, tenant.storeId)
  const names = await toolNames(client)
  t.ok(names.includes('list_reviews') && names.includes('get_review'))
  t.notOk(names.includes('update_review'), 'no reviews:write')
  t.notOk(names.includes('list_products'), 'no products:read')
  const refused = await callTool(client, 'list_products')
  t.equal(errorOf(refused).code, 'insufficient_scope')
})

t.test('a revoked key fails on its next call', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const client = await connectClient(t, await baseOf(app), key.secret, tenant.storeId)
  t.equal((await callTool(client, 'list_reviews')).isError, undefined)
  const revoked = await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(revoked.statusCode, 200)
  await t.rejects(callTool(client, 'list_reviews'), /401|nauthorized|invalid/i)
})

t.test('per-key limits count tool calls: past the budget a call answers rate_limited', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'editor')
  const client = await connectClient(t, await baseOf(app), key.secret, tenant.storeId)
  const results = await Promise.all(Array.from({ length: 60 }, () => callTool(client, 'list_reviews')))
  const limited = results.filter((r) => r.isError && errorOf(r).code === 'rate_limited')
  const served = results.filter((r) => !r.isError)
  t.ok(limited.length > 0, 'some calls are refused')
  t.ok(served.length <= 50, `${served.length} served: within the 50 per 10 s budget (initialize spent one)`)
  t.equal(limited.length + served.length, 60, 'nothing else went wrong')
})

t.test('a store of another organization is refused with store_env_not_found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, other.storeId)
  const res = await callTool(client, 'list_reviews')
  t.equal(res.isError, true)
  t.equal(errorOf(res).code, 'store_env_not_found')
})

t.test('?storeEnvId= on the URL names the store for hosts that cannot set headers', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'q1' }] }
  })
  const client = await connectClient(t, await baseOf(app), tenant.key, null, `/mcp?storeEnvId=${tenant.storeId}`)
  const res = await callTool(client, 'list_products')
  t.equal((res.structuredContent as { meta: { total: number } }).meta.total, 1)
})

t.test('a call without a store answers store_env_required', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, null)
  t.equal(errorOf(await callTool(client, 'list_reviews')).code, 'store_env_required')
})

t.test('an unknown tool is an MCP InvalidParams error', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const err = await callTool(client, 'drop_everything').then(() => null, (e: unknown) => e)
  t.ok(err instanceof McpError)
  t.equal((err as McpError).code, ErrorCode.InvalidParams)
})

t.test('tools/call with params of the wrong shape is InvalidParams naming the field, not an internal error', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const [params, field] of [[{ name: 123 }, 'params.name'], [{ name: 'list_reviews', arguments: 'x' }, 'params.arguments'], [
      {},
      'params.name'
    ]] as const
  ) {
    const res = await post(app, tenant, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }), '2025-06-18')
    t.equal(res.statusCode, 200, JSON.stringify(params))
    const { id, error } = res.json() as { id: number, error: { code: number, message: string } }
    t.equal(id, 7)
    t.equal(error.code, ErrorCode.InvalidParams, JSON.stringify(params))
    t.match(error.message, `Invalid params for tools/call: ${field}: Invalid input: expected `)
    t.notMatch(error.message, /\n/, 'one line, not a dump of the Zod issues')
  }
})

t.test('tools/call with arguments nested 10,000 levels deep is InvalidParams, not an internal error', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
  const res = await post(
    app,
    tenant,
    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_reviews","arguments":{"rating":${deep}}}}`,
    '2025-06-18'
  )
  t.equal(res.statusCode, 200)
  t.match(
    res.json(),
    { id: 3, error: { code: ErrorCode.InvalidParams, message: /the arguments of list_reviews are nested too deeply/ } },
    res.body.slice(0, 300)
  )
})

t.test('wrong params of the other requests are InvalidParams too: initialize, tools/list and resources/read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const [method, params, field] of [['initialize', {}, 'params.protocolVersion'], ['tools/list', { cursor: 5 }, 'params.cursor'], [
      'resources/read',
      { uri: 5 },
      'params.uri'
    ]] as const
  ) {
    const res = await post(app, tenant, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), '2025-06-18')
    const { error } = res.json() as { error: { code: number, message: string } }
    t.equal(error.code, ErrorCode.InvalidParams, method)
    t.match(error.message, `Invalid params for ${method}: ${field}: `, method)
  }
})

t.test('malformed JSON is the JSON-RPC parse error (-32700, id null, HTTP 400) the transport gives any unparseable body', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const payload of ['{"jsonrpc":"2.0","id":1,', '']) {
    const res = await post(app, tenant, payload, '2025-06-18')
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.match(res.headers['content-type'], /^application\/json/)
    t.match(res.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.ParseError, message: 'Parse error: Invalid JSON', data: String }
    }, res.body.slice(0, 300))
  }
})

t.test('under MCP 2025-06-18, which removed JSON-RPC batching, a batch is refused whole as an Invalid Request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await post(app, tenant, toolsList(2), '2025-06-18')
  t.equal(res.statusCode, 400)
  t.match(
    res.json(),
    { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: /no JSON-RPC batches/ } },
    res.body.slice(0, 300)
  )
})

t.test('a 2025-03-26 batch may hold no more requests than a credential may send in a second, as it is counted once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const eleven = await post(app, tenant, toolsList(11))
  t.equal(eleven.statusCode, 400)
  t.match(eleven.json(), {
    id: null,
    error: { code: ErrorCode.InvalidRequest, message: /at most 10 requests other than tools\/call .* this one holds 11/ }
  }, eleven.body.slice(0, 300))
  t.equal(eleven.headers['ratelimit-remaining'], '9', 'the refusal is counted as one request')
  const ten = await post(app, tenant, toolsList(10), '2025-03-26')
  t.equal(ten.statusCode, 200)
  t.equal((ten.json() as unknown[]).length, 10, 'ten are answered')
  t.ok(Number(ten.headers['ratelimit-remaining']) >= 8, `counted as one request: ${ten.headers['ratelimit-remaining']} left`)
})

t.test('an empty batch is refused as an Invalid Request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await post(app, tenant, '[]')
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    jsonrpc: '2.0',
    id: null,
    error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: the batch is empty' }
  })
})

t.test('bad arguments give an error result with the REST { message, code }', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const res = await callTool(client, 'list_reviews', { rating: 'lots' })
  t.equal(res.isError, true)
  const body = errorOf(res)
  t.equal(body.code, 'invalid_request')
  t.type(body.message, 'string')
  const missing = await callTool(client, 'get_review', { id: 'rev_missing' })
  t.equal(errorOf(missing).code, 'not_found')
})

t.test('the hand-over header a tool call uses carries no authority from outside the process', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const base = await baseOf(app)
  const forged = { 'x-evidence-hub-hand-over': '00000000-0000-4000-8000-000000000000', 'x-store-env-id': tenant.storeId }
  const bare = await fetch(`${base}/v1/products`, { headers: forged })
  t.equal(bare.status, 401, 'no credential is still no credential')
  const injected = await app.inject({ method: 'GET', url: '/v1/products', headers: forged })
  t.equal(injected.statusCode, 401, 'nor in process without a live hand-over')
  const write = await fetch(`${base}/v1/products`, {
    method: 'PUT',
    headers: { ...forged, authorization: `Bearer ${viewer.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ products: [{ platformProductId: 'x1' }] })
  })
  t.equal((await write.json() as { code: string }).code, 'role_read_only', 'a viewer stays a viewer')
})
