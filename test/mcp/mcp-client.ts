import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

const listening = new WeakMap<FastifyInstance, Promise<string>>()

/** The app on real HTTP (once per app), for the SDK's Streamable HTTP client. */
export function baseOf (app: FastifyInstance): Promise<string> {
  let base = listening.get(app)
  if (!base) {
    base = app.listen({ port: 0, host: '127.0.0.1' })
    listening.set(app, base)
  }
  return base
}

/** The official MCP client, connected to /mcp with a bearer credential and, unless null, the store header. */
export async function connectClient (t: Test, base: string, token: string, store: string | null, path = '/mcp'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...(store ? { 'x-store-env-id': store } : {}) } }
  })
  const client = new Client({ name: 'evidence-hub-test', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

export async function toolNames (client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name)
}

export async function callTool (client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult
}

/** The REST `{ message, code }` an error result carries as its text. */
export function errorOf (result: CallToolResult): { message: string, code: string } {
  const first = result.content[0]
  return JSON.parse(first.type === 'text' ? first.text : '{}') as { message: string, code: string }
}
