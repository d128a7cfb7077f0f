/**
 * One MCP tool per REST operation (docs/contract/agents.md#tools), derived from the route's own schema and config, so a
 * route added later gets its tool without anyone keeping a second list. Names come from method and path alone.
 */
import type { Feature } from '../../features.js'
import type { Resource, Role } from '../../lib/permissions.js'
import { operationName } from '../../lib/operation-names.js'
import type { Plan } from '../../types.js'

type JsonSchema = Record<string, unknown>

/** What the MCP server needs of a route: what fastify's onRoute hook hands over, after the auth plugin's defaults. */
export interface RestOperation {
  method: string
  url: string
  schema?: Record<string, unknown>
  config: {
    resource: Resource
    minRole?: Role
    scopeExempt?: boolean
    scopesOf?: readonly Resource[]
    storeScoped?: boolean
    plan?: Exclude<Plan, 'free'>
    feature?: Feature
  }
}

export interface ToolSpec {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema & { type: 'object' }
  outputSchema?: JsonSchema & { type: 'object' }
  annotations: { title: string, readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean, openWorldHint: false }
  operation: RestOperation
  /** Where each argument goes: path parameters, querystring, and the JSON body (or null: the method takes none). */
  params: string[]
  query: string[]
  /** Set when the body's fields could not sit beside the others: the whole body is the argument `body`. */
  bodyArgument: boolean
}

/** A plain JSON copy: TypeBox schemas carry symbol keys and shared references that JSON Schema readers do not expect. */
function plain (schema: unknown): JsonSchema | undefined {
  return schema && typeof schema === 'object' ? JSON.parse(JSON.stringify(schema)) as JsonSchema : undefined
}

function propertiesOf (schema: JsonSchema | undefined): Record<string, JsonSchema> {
  return (schema?.properties as Record<string, JsonSchema> | undefined) ?? {}
}

function requiredOf (schema: JsonSchema | undefined): string[] {
  return Array.isArray(schema?.required) ? schema.required as string[] : []
}

function pathParams (url: string): string[] {
  return url.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1))
}

/** Parameters, querystring and body fields side by side, as an agent expects; the body whole if names clash. */
function inputOf (op: RestOperation) {
  const schema = op.schema ?? {}
  const params = pathParams(op.url)
  const paramSchema = propertiesOf(plain(schema.params))
  const query = plain(schema.querystring)
  const body = plain(schema.body)
  const properties: Record<string, JsonSchema> = {}
  for (const name of params) properties[name] = paramSchema[name] ?? { type: 'string' }
  Object.assign(properties, propertiesOf(query))
  const required = [...params, ...requiredOf(query)]
  const bodyFields = propertiesOf(body)
  const clash = Object.keys(bodyFields).some((name) => name in properties)
  const bodyArgument = body !== undefined && (body.type !== 'object' || clash)
  if (bodyArgument) {
    properties.body = body
    required.push('body')
  } else if (body) {
    Object.assign(properties, bodyFields)
    required.push(...requiredOf(body))
  }
  const inputSchema: JsonSchema & { type: 'object' } = { type: 'object', properties }
  if (required.length) inputSchema.required = [...new Set(required)]
  return { inputSchema, params, query: Object.keys(propertiesOf(query)), bodyArgument }
}

function outputOf (op: RestOperation): (JsonSchema & { type: 'object' }) | undefined {
  const responses = (op.schema?.response ?? {}) as Record<string, unknown>
  const ok = plain(responses['200'] ?? responses['201'])
  return ok?.type === 'object' ? ok as JsonSchema & { type: 'object' } : undefined
}

export function toolFor (op: RestOperation): ToolSpec {
  const schema = op.schema ?? {}
  const outputSchema = outputOf(op)
  const summary = typeof schema.summary === 'string' ? schema.summary : `${op.method} ${op.url}`
  const details = typeof schema.description === 'string' ? `\n\n${schema.description}` : ''
  const name = operationName(op.method, op.url, outputSchema)
  const read = op.method === 'GET'
  return {
    name,
    title: summary,
    description: `${summary}.${details}\n\nREST: ${op.method} ${op.url}. Errors are returned as { message, code }.`,
    ...inputOf(op),
    outputSchema,
    annotations: {
      title: summary,
      readOnlyHint: read,
      destructiveHint: op.method === 'DELETE',
      idempotentHint: read || op.method === 'PUT' || op.method === 'DELETE',
      openWorldHint: false
    },
    operation: op
  }
}

/** Every operation's tool; two operations that would share a name are a bug in the naming, caught at start-up. */
export function toolsFor (operations: RestOperation[]): Map<string, ToolSpec> {
  const tools = new Map<string, ToolSpec>()
  for (const op of operations) {
    const tool = toolFor(op)
    const taken = tools.get(tool.name)
    if (taken) {
      throw new Error(`MCP tool ${tool.name} would serve both ${taken.operation.method} ${taken.operation.url} and ${op.method} ${op.url}`)
    }
    tools.set(tool.name, tool)
  }
  return tools
}
