import { readFileSync } from 'node:fs'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors.js'
import { catalogueOf, collectOperations } from './catalogue.js'

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }

/**
 * The agent server (decisions.md section 16): Model Context Protocol over Streamable HTTP at /mcp, whose tools are
 * the REST operations under /v1. Registered before the modules so its onRoute hook sees every route they add.
 */
export default fp(async (app) => {
  const operations = collectOperations(app)
  const publicUrl = app.config.publicUrl
  const metadataUrl = `${publicUrl}/.well-known/oauth-protected-resource/mcp`
  // Made on the first message, once every route is registered: most instances (and test apps) never get one, and
  // making it compiles a tool per operation.
  let catalogue: ReturnType<typeof catalogueOf> | null = null
  // The MCP SDK (with the zod it brings) is ~7 MB of heap: loaded with the first message too.
  let transport: Promise<typeof import('./transport.js')> | null = null

  // RFC 9728: tells an MCP client which authorization server issues tokens for /mcp (the /oauth provider).
  const metadata = {
    resource: `${publicUrl}/mcp`,
    authorization_servers: [`${publicUrl}/oauth`],
    bearer_methods_supported: ['header'],
    scopes_supported: ['read', 'write', 'offline_access'],
    resource_name: 'Evidence Hub',
    resource_documentation: `${publicUrl}/docs`
  }
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    app.get(url, { config: { auth: 'none' } }, async () => metadata)
  }

  app.post('/mcp', {
    schema: {
      tags: ['agents'],
      operationId: 'mcp',
      summary: 'Model Context Protocol (Streamable HTTP, stateless): POST JSON-RPC messages; tools are the REST operations the credential may call',
      security: [{ bearer: [] }, { oauth2: [] }]
    },
    config: { auth: 'none', errors: ['missing_credentials', 'invalid_credentials', 'rate_limited'] }
  }, async (request, reply) => {
    const credential = await authenticate(request, reply)
    catalogue ??= catalogueOf(app, operations, version)
    const { handleMcp, storeIdOf } = await (transport ??= import('./transport.js'))
    return handleMcp(app, catalogue, { request, credential, storeId: storeIdOf(request) }, reply)
  })

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST')
    throw new errors.MethodNotAllowed('This MCP server is stateless: POST each JSON-RPC message to /mcp')
  }
  const stateless = (operationId: string) => ({ schema: { tags: ['agents'], operationId, summary: 'Not served: the MCP server keeps no sessions (405)' }, config: { auth: 'none' as const, errors: ['method_not_allowed'] } })
  app.get('/mcp', stateless('mcp_stream_not_served'), notAllowed)
  app.delete('/mcp', stateless('mcp_session_end_not_served'), notAllowed)

  /**
   * The REST pipeline's own credential step. A tools/call is counted against the credential's limits by the REST
   * call it becomes; every other request (initialize, tools/list, resources/read) is counted here, so each message
   * costs one and none costs two. A 401 names the resource metadata (MCP authorization, RFC 9728 section 5.1).
   */
  async function authenticate (request: FastifyRequest, reply: FastifyReply) {
    try {
      return await app.authenticate(request, reply, { charge: chargedHere(request.body) })
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 401) {
        const invalid = (err as { code?: string }).code === 'INVALID_CREDENTIALS' ? ', error="invalid_token"' : ''
        reply.header('www-authenticate', `Bearer resource_metadata="${metadataUrl}"${invalid}`)
      }
      throw err
    }
  }
}, { name: 'mcp', dependencies: ['auth', 'tenancy', 'openapi', 'services'] })

/** Whether the HTTP request holds a JSON-RPC request other than tools/call (notifications and responses cost nothing). */
function chargedHere (body: unknown): boolean {
  const messages = Array.isArray(body) ? body as unknown[] : [body]
  return messages.some((m) => {
    if (!m || typeof m !== 'object') return true
    const { id, method } = m as { id?: unknown, method?: unknown }
    return id !== undefined && method !== 'tools/call'
  })
}
