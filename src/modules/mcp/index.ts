import { readFileSync } from 'node:fs'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors.js'
import { REQUEST_WINDOWS } from '../../features.js'
import { bearerChallenge } from '../../lib/bearer-challenge.js'
import { catalogueOf, collectOperations } from './catalogue.js'

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }

/**
 * The agent server (docs/contract/agents.md#transport-and-credentials): Model Context Protocol over Streamable HTTP at
 * /mcp, whose tools are the REST operations under /v1. Registered before the modules so its onRoute hook sees every
 * route they add.
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

  // Its own scope, so that the JSON parser below is /mcp's alone.
  await app.register(async (scope) => {
    parseAsJsonRpc(scope)
    scope.post('/mcp', {
      schema: {
        tags: ['agents'],
        operationId: 'mcp',
        summary:
          'Model Context Protocol (Streamable HTTP, stateless): POST JSON-RPC messages; tools are the REST operations the credential may call',
        security: [{ bearer: [] }, { oauth2: [] }]
      },
      config: { auth: 'none', errors: ['missing_credentials', 'invalid_credentials', 'rate_limited'] }
    }, async (request, reply) => {
      // Refused as a whole, before any message is served: counted as one request, like a message that fails.
      const refusal = refusalOf(request)
      const credential = await authenticate(request, reply, refusal !== null || chargedHere(request.body))
      if (refusal) {
        return reply.code(refusal.status).type('application/json').send(jsonRpcError(refusal.code, refusal.message, refusal.data))
      }
      catalogue ??= catalogueOf(app, operations, version)
      const { handleMcp, storeIdOf } = await (transport ??= import('./transport.js'))
      return handleMcp(app, catalogue, { request, credential, storeId: storeIdOf(request) }, reply)
    })
  })

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST')
    throw new errors.MethodNotAllowed('This MCP server is stateless: POST each JSON-RPC message to /mcp')
  }
  const stateless = (operationId: string) => ({
    schema: { tags: ['agents'], operationId, summary: 'Not served: the MCP server keeps no sessions (405)' },
    config: { auth: 'none' as const, errors: ['method_not_allowed'] }
  })
  app.get('/mcp', stateless('mcp_stream_not_served'), notAllowed)
  app.delete('/mcp', stateless('mcp_session_end_not_served'), notAllowed)

  /**
   * The REST pipeline's own credential step. A tools/call is counted against the credential's limits by the REST
   * call it becomes; every other request (initialize, tools/list, resources/read) is counted here, so each message
   * costs one and none costs two. The pipeline counts one per HTTP request, so a batch (protocol 2025-03-26) is
   * counted once and may hold at most MOST_CHARGED_PER_BATCH such requests (refusalOf). A 401 names the resource
   * metadata (MCP authorization, RFC 9728 section 5.1).
   */
  async function authenticate (request: FastifyRequest, reply: FastifyReply, charge: boolean) {
    try {
      return await app.authenticate(request, reply, { charge })
    } catch (err) {
      const refused = err as { statusCode?: number, code?: string, message: string }
      if (refused.statusCode === 401) {
        const invalid = refused.code === 'INVALID_CREDENTIALS' ? { description: refused.message } : undefined
        reply.header('www-authenticate', bearerChallenge({ invalid, resourceMetadata: metadataUrl }))
      }
      throw err
    }
  }
}, { name: 'mcp', dependencies: ['pipeline', 'openapi', 'services'] })

/** A JSON-RPC request other than tools/call (notifications and responses cost nothing; a tools/call, its REST call). */
function chargedMessage (m: unknown): boolean {
  if (!m || typeof m !== 'object') return true
  const { id, method } = m as { id?: unknown, method?: unknown }
  return id !== undefined && method !== 'tools/call'
}

/** Whether the HTTP request holds a message counted here (see `authenticate`). */
function chargedHere (body: unknown): boolean {
  return Array.isArray(body) ? body.some(chargedMessage) : chargedMessage(body)
}

/** A body the JSON parser of /mcp could not read, and why; the handler answers it once the caller is known. */
class Unparsed {
  constructor (readonly reason: string) {}
}

/**
 * fastify's JSON parser answers a body it cannot read with a REST 400 `{ message, code }`; a JSON-RPC client expects
 * the parse error (-32700, id null) that the transport already gives a body that is JSON but no message. The body is
 * parsed as fastify parses it (with its guards against prototype poisoning); a failure becomes an `Unparsed` body.
 */
function parseAsJsonRpc (scope: FastifyInstance) {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = scope.initialConfig
  const parse = scope.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  // Replaces the REST parser (plugins/strict-input.ts), whose refusals are REST answers.
  if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, String(body), (err, value) => { done(null, err ? new Unparsed(err.message) : value) })
  })
}

/** JSON-RPC error codes (the SDK's ErrorCode, which this file does not load). */
const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

/** MCP removed JSON-RPC batches in 2025-06-18: a POST under that version or a later one holds one message. */
const BATCHES_REMOVED = '2025-06-18'

/**
 * A batch is counted as one request (a credential's limiter counts one per step), so it may hold no more requests
 * that are counted here than a credential may send in a second; tools/call messages are each counted by their REST call.
 */
const MOST_CHARGED_PER_BATCH = Math.min(...REQUEST_WINDOWS.map((w) => w.limit))

interface Refusal { status: number, code: number, message: string, data?: string }

/**
 * What /mcp refuses before any message is served, answered as the SDK's transport answers a POST it refuses (HTTP
 * 400, a JSON-RPC error with id null): a body that is not JSON, and the batches it must not serve. Without an
 * MCP-Protocol-Version header a request is 2025-03-26 (the spec's rule), the last version with batches.
 */
function refusalOf (request: FastifyRequest): Refusal | null {
  const body = request.body
  if (body instanceof Unparsed) return { status: 400, code: PARSE_ERROR, message: 'Parse error: Invalid JSON', data: body.reason }
  if (!Array.isArray(body)) return null
  const version = request.headers['mcp-protocol-version']
  if (typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= BATCHES_REMOVED) {
    return {
      status: 400,
      code: INVALID_REQUEST,
      message:
        `Invalid Request: MCP ${version} has no JSON-RPC batches (they were removed in ${BATCHES_REMOVED}); POST one message at a time`
    }
  }
  if (body.length === 0) return { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: the batch is empty' }
  const charged = body.filter(chargedMessage).length
  if (charged > MOST_CHARGED_PER_BATCH) {
    return {
      status: 400,
      code: INVALID_REQUEST,
      message:
        `Invalid Request: a batch may hold at most ${MOST_CHARGED_PER_BATCH} requests other than tools/call (what a credential may send in a second); this one holds ${charged}`
    }
  }
  return null
}

function jsonRpcError (code: number, message: string, data?: string) {
  return { jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }
}
