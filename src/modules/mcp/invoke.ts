/**
 * A tool call is the REST call it stands for, injected into the app with the caller's own credential and store, so
 * role, scopes, plan, subscription, per-credential limits, masking and audit run unchanged
 * (docs/contract/agents.md#tools). The credential /mcp resolved moments ago is handed over (app.injectAs) rather than
 * looked up a second time.
 */
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify'
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Credential } from '../../types.js'
import type { ToolSpec } from './tools.js'

type Args = Record<string, unknown>

/** The headers a tool call passes on: the credential (as REST sees it), the store, and what audit records about the caller. */
const PASSED_ON = ['authorization', 'x-api-key', 'user-agent'] as const

function queryValue (value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(queryValue)
  if (value === undefined || value === null) return []
  return [typeof value === 'object' ? JSON.stringify(value) : String(value)]
}

function pathOf (tool: ToolSpec, args: Args): string {
  return tool.operation.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(queryValue(args[name])[0] ?? ''))
}

/** Splits the arguments into path, querystring and body as the tool's input schema laid them out. */
export function restRequest (tool: ToolSpec, args: Args): { url: string, body?: unknown } {
  const { method } = tool.operation
  const takesBody = method !== 'GET' && method !== 'DELETE'
  const search = new URLSearchParams()
  const body: Args = {}
  for (const [name, value] of Object.entries(args)) {
    if (tool.params.includes(name)) continue
    if (tool.query.includes(name) || !takesBody) {
      for (const v of queryValue(value)) search.append(name, v)
    } else if (!tool.bodyArgument) {
      body[name] = value
    }
  }
  const qs = search.toString()
  const url = `${pathOf(tool, args)}${qs ? `?${qs}` : ''}`
  if (!takesBody) return { url }
  return { url, body: tool.bodyArgument ? args.body : body }
}

export interface Caller { request: FastifyRequest, credential: Credential, storeId: string | null }

/** The REST response of the last call, whose RateLimit-* headers the MCP response carries on. */
export type LimitHeaders = Record<string, string>
const LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']

export async function invoke (
  app: FastifyInstance,
  tool: ToolSpec,
  args: Args,
  caller: Caller,
  limits: LimitHeaders
): Promise<CallToolResult> {
  let url: string
  let payload: string | undefined
  try {
    const request = restRequest(tool, args)
    url = request.url
    payload = request.body === undefined ? undefined : JSON.stringify(request.body)
  } catch (err) {
    // JSON.stringify recurses: arguments nested some thousands deep overflow the stack before any REST call is made.
    if (err instanceof RangeError) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params for tools/call: the arguments of ${tool.name} are nested too deeply to make its REST call`
      )
    }
    throw err
  }
  const headers: Record<string, string> = {}
  for (const name of PASSED_ON) {
    const value = caller.request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  if (caller.storeId) headers['x-store-env-id'] = caller.storeId
  const options: InjectOptions = {
    method: tool.operation.method as InjectOptions['method'],
    url,
    headers,
    remoteAddress: caller.request.ip
  }
  if (payload !== undefined) {
    headers['content-type'] = 'application/json'
    options.payload = payload
  }
  const res = await app.injectAs(caller.credential, options)
  for (const name of LIMIT_HEADERS) {
    const value = res.headers[name]
    if (value !== undefined) limits[name] = String(value)
  }
  return resultOf(res.statusCode, res.body)
}

/**
 * A success carries the REST JSON as structured content too (it matches the tool's output schema); an error carries
 * the REST `{ message, code }` as text only, with isError (MCP spec, tool execution errors): structured content is
 * validated against the output schema by clients such as the official SDK, which would throw on the error's shape.
 */
function resultOf (status: number, text: string): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: text || JSON.stringify({ status }) }]
  if (status < 200 || status >= 300) return { content, isError: true }
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  const structured = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : undefined
  return { content, ...(structured ? { structuredContent: structured } : {}) }
}
