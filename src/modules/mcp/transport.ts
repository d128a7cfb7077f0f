import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Caller, LimitHeaders } from './invoke.js'
import { mcpServer, type Catalogue } from './server.js'

/** The MCP transport reads these; everything else (the credential above all) stays with fastify. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id']

/** The store as the REST API takes it, or as `?storeEnvId=` for agent hosts that cannot set headers. */
export function storeIdOf (request: FastifyRequest): string | null {
  const header = request.headers['x-store-env-id']
  if (typeof header === 'string' && header.trim()) return header.trim()
  const query = (request.query as Record<string, unknown> | undefined)?.storeEnvId
  return typeof query === 'string' && query.trim() ? query.trim() : null
}

function webRequest (request: FastifyRequest): Request {
  const headers = new Headers()
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers.set(name, value)
  }
  return new Request('http://mcp.invalid/mcp', { method: 'POST', headers })
}

/**
 * Stateless Streamable HTTP (no session id): a fresh server and transport per POST, answering with plain JSON
 * rather than an event stream, since every tool call completes within the request.
 */
export async function handleMcp (app: FastifyInstance, catalogue: Catalogue, caller: Caller, reply: FastifyReply) {
  const limits: LimitHeaders = {}
  const server = mcpServer(app, catalogue, caller, limits)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    const response = await transport.handleRequest(webRequest(caller.request), { parsedBody: caller.request.body })
    const text = await response.text()
    reply.code(response.status)
    response.headers.forEach((value, name) => { if (name !== 'content-length') reply.header(name, value) })
    for (const [name, value] of Object.entries(limits)) reply.header(name, value)
    return reply.send(text)
  } finally {
    await server.close()
  }
}
