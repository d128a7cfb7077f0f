import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Caller, LimitHeaders } from './invoke.js'
import { invalidParams, mcpServer, type Catalogue } from './server.js'

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
  const headers: Record<string, string> = {}
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  return new Request('http://mcp.invalid/mcp', { method: 'POST', headers })
}

/**
 * Stateless Streamable HTTP (no session id): a fresh server and transport per POST, answering with plain JSON
 * rather than an event stream, since every tool call completes within the request.
 *
 * The pair is not closed afterwards: in JSON mode the transport answers only once every request of the POST has
 * its response, so no handler is still running and no server-to-client request is pending, and nothing outside
 * the pair refers to it. close() would only abort handlers that have already finished and build a stack-traced
 * ConnectionClosed error for pending requests that do not exist (it showed in the profile); the garbage collector
 * takes both objects as it is.
 */
export async function handleMcp (app: FastifyInstance, catalogue: Catalogue, caller: Caller, reply: FastifyReply) {
  const limits: LimitHeaders = {}
  const server = mcpServer(app, catalogue, caller, limits)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  // A request whose params do not fit its method is answered here (server.ts, invalidParams), not by the server.
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    const refusal = invalidParams(message)
    if (!refusal) return deliver?.(message, extra)
    // The answer to its request id: the transport answers the POST once every request of it has one.
    transport.send(refusal).catch((err: unknown) => app.log.error({ err }, 'could not answer an MCP request with wrong params'))
  }
  const response = await transport.handleRequest(webRequest(caller.request), { parsedBody: caller.request.body })
  const text = await response.text()
  reply.code(response.status)
  response.headers.forEach((value, name) => { if (name !== 'content-length') reply.header(name, value) })
  for (const [name, value] of Object.entries(limits)) reply.header(name, value)
  return reply.send(text)
}
