/**
 * The MCP server one HTTP request talks to. Instances are stateless
 * (docs/contract/agents.md#transport-and-credentials): each POST gets a fresh server bound to the caller's credential
 * and store, so nothing has to be shared between instances.
 */
import type { FastifyInstance } from 'fastify'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js'
import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, isJSONRPCRequest, ListResourcesRequestSchema, ListToolsRequestSchema, McpError,
  PingRequestSchema, ReadResourceRequestSchema, type JSONRPCErrorResponse, type JSONRPCMessage, type Tool
} from '@modelcontextprotocol/sdk/types.js'
import { accessFor, refusalFor } from '../../lib/permissions.js'
import type { Credential, StoreEnv } from '../../types.js'
import { planRefusal, type FeatureOverrides } from '../../features.js'
import { invoke, type Caller, type LimitHeaders } from './invoke.js'
import type { ToolSpec } from './tools.js'

export interface McpResource { uri: string, name: string, title: string, description: string, mimeType: string, text: () => string }

export interface Catalogue { tools: Map<string, ToolSpec>, resources: McpResource[], version: string }

const INSTRUCTIONS = 'Evidence Hub: reviews, products, orders and store evidence of one store environment. Each tool is one ' +
  'REST operation of the API (see the openapi resource) and answers with its JSON; errors are { message, code }.'

/**
 * Whether the credential may call the tool at all: the permission checks of the pipeline, and the store's
 * entitlements (its plan and operator overrides, as pipeline/check-access.ts checks them).
 */
export function mayCall (credential: Credential, store: StoreEnv | null, tool: ToolSpec, overrides: FeatureOverrides = {}): boolean {
  const { config, url, method } = tool.operation
  if (refusalFor(credential, { url, ...config }, accessFor(method))) return false
  return !(store && planRefusal(store.plan, overrides, config))
}

/** How tools/list shows a tool; it depends on the route alone, so it is built once per tool and shared. */
const descriptions = new WeakMap<ToolSpec, Tool>()

function describe (tool: ToolSpec): Tool {
  let described = descriptions.get(tool)
  if (!described) {
    described = descriptionOf(tool)
    descriptions.set(tool, described)
  }
  return described
}

function descriptionOf (tool: ToolSpec): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
    _meta: { 'evidence-hub/operation': `${tool.operation.method} ${tool.operation.url}` }
  }
}

/** The caller's store, if it is one the credential may use; only the plan filter of tools/list needs it. */
async function usableStore (app: FastifyInstance, credential: Credential, id: string | null): Promise<StoreEnv | null> {
  if (!id) return null
  const store = await app.services.stores.find(id)
  const inGrant = !credential.storeIds || credential.storeIds.includes(id)
  return store && store.orgId === credential.orgId && inGrant ? store : null
}

/**
 * One validator for every request's server: the SDK otherwise builds a new Ajv instance (with formats) per Server,
 * which cost more than the whole REST call it wraps. This server never validates against client schemas anyway.
 */
const validator = new AjvJsonSchemaValidator()

export function mcpServer (app: FastifyInstance, catalogue: Catalogue, caller: Caller, limits: LimitHeaders): Server {
  const { credential } = caller
  const server = new Server({ name: 'evidence-hub', version: catalogue.version }, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator
  })

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const store = await usableStore(app, credential, caller.storeId)
    const overrides = store ? await app.services.features.overrides(store.id) : {}
    return { tools: [...catalogue.tools.values()].filter((tool) => mayCall(credential, store, tool, overrides)).map(describe) }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = catalogue.tools.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    return invoke(app, tool, request.params.arguments ?? {}, caller, limits)
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: catalogue.resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType }))
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = catalogue.resources.find((r) => r.uri === request.params.uri)
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`)
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.text() }] }
  })

  return server
}

interface RequestSchema {
  safeParse: (
    request: unknown
  ) => { success: boolean, error?: { issues: ReadonlyArray<{ path: readonly PropertyKey[], message: string }> } }
}

/** The requests this server answers, each with the schema the SDK parses it with before its handler runs. */
const REQUESTS = new Map<string, RequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema]
])

/**
 * The SDK parses a request with its method's schema inside the handler it registers, and answers a failed parse
 * with -32603 Internal error and the Zod issues dumped as the message. Checked here before the server sees the
 * request, wrong params are -32602 Invalid params, with a message naming each wrong field.
 */
export function invalidParams (message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!isJSONRPCRequest(message)) return null
  const parsed = REQUESTS.get(message.method)?.safeParse(message)
  if (!parsed || parsed.success) return null
  const problems = (parsed.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.') || 'params'}: ${issue.message}`)
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${problems.join('; ')}` }
  }
}
