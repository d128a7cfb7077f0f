import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { baseOf, callTool, connectClient, errorOf } from './mcp-client.js'

// The SDK's client validates a result's structuredContent against the output schema of a tool it has listed:
// an error result must carry the REST { message, code } as text only (MCP spec: isError, content), or the client throws.

t.test('after tools/list, a not_found tool error reaches the SDK client as an error result, not a thrown -32602', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  const tool = (await client.listTools()).tools.find((tool) => tool.name === 'get_review')
  t.ok(tool?.outputSchema, 'get_review declares an output schema')
  const res = await callTool(client, 'get_review', { id: 'rev_nope' })
  t.equal(res.isError, true)
  t.equal(errorOf(res).code, 'not_found')
  t.equal(res.structuredContent, undefined, 'no structured content that contradicts the output schema')
})

t.test('after tools/list, a validation error of a tool with an output schema is an error result the client returns', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  await client.listTools()
  const res = await callTool(client, 'list_reviews', { rating: 'lots' })
  t.equal(res.isError, true)
  t.equal(errorOf(res).code, 'invalid_request')
})

t.test('after tools/list, a successful call still carries structured content that matches the output schema', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const client = await connectClient(t, await baseOf(app), tenant.key, tenant.storeId)
  await client.listTools()
  const res = await callTool(client, 'list_reviews', { limit: 1 })
  t.equal(res.isError, undefined)
  t.match(res.structuredContent, { data: [] })
})
