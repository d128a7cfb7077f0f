import { STATUS_CODES } from 'node:http'
import type { RouteOptions } from 'fastify'
import { accessFor, isOrgManagement } from '../lib/permissions.js'
import { operationName } from '../lib/operation-names.js'
import { errors } from '../errors.js'
import { takesIdempotencyKey } from '../lib/idempotency.js'
import { ErrorBody } from '../schemas.js'
import { checksIfMatch, marksEtag, MAX_CONDITION_LENGTH } from './conditional-requests.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Codes the route's own service can answer with, beyond what the pipeline adds (for the OpenAPI document). */
    errors?: readonly string[]
  }
}

type Schema = Record<string, unknown>

/**
 * Every error code with its status, read from src/errors.ts so that the document cannot drift from it. A code two
 * errors share keeps the first one's status (`idempotency_key_reused`: loyalty's 409); the other is added where it
 * applies (the Idempotency-Key header's 400, below).
 */
export const ERROR_STATUS: ReadonlyMap<string, number> = new Map(Object.values(errors).reverse().map((E) => {
  const error = new E()
  return [error.code.toLowerCase(), error.statusCode!] as const
}))

/** What the Idempotency-Key header adds to an operation that takes it (pipeline/idempotency-key.ts). */
const IDEMPOTENCY_ERRORS = [
  ['invalid_request', new errors.InvalidRequest('').statusCode!],
  ['idempotency_key_reused', new errors.IdempotencyKeyMismatch().statusCode!],
  ['idempotency_key_in_progress', new errors.IdempotencyKeyInProgress().statusCode!]
] as const

/** Marks an operation that takes the header; plugins/openapi.ts replaces it with the shared parameter. */
export const IDEMPOTENT_MARK = 'x-idempotency-key'

/**
 * The codes an operation can answer with: those of the pipeline it goes through (store and access steps, storefront, limits,
 * validation), decided by its route config the same way the plugins decide, and those its config lists.
 */
export function errorCodesOf (route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>): string[] {
  const config = (route.config ?? {}) as NonNullable<RouteOptions['config']>
  const method = Array.isArray(route.method) ? route.method[0] : route.method
  const schema = (route.schema ?? {}) as Schema
  const access = accessFor(method)
  const codes = new Set<string>(config.errors ?? [])
  if (schema.body || schema.querystring || schema.params) codes.add('invalid_request')
  if (schema.body) codes.add('payload_too_large').add('unsupported_media_type')
  if (route.url.includes('/:')) codes.add('not_found')
  // Any operation that reads the database answers 503 while it is unreachable (plugins/error-handler.ts).
  if (config.auth === 'credential' || config.auth === 'storefront') codes.add('service_unavailable')
  if (config.auth === 'credential') {
    codes.add('missing_credentials').add('invalid_credentials').add('rate_limited').add('role_forbidden')
    if (access === 'write') codes.add('role_read_only')
    if (!config.scopeExempt) codes.add('insufficient_scope')
    if (isOrgManagement(route.url, access)) codes.add('credential_not_allowed')
    if (config.storeScoped !== false) {
      codes.add('store_env_required').add('store_env_not_found')
      if (!config.subscriptionExempt) codes.add('subscription_expired')
    }
    if (config.plan || config.feature) codes.add('plan_required')
  }
  if (config.auth === 'storefront') {
    codes.add('store_env_required').add('store_env_not_found').add('origin_not_allowed').add('subscription_expired').add('rate_limited')
  }
  if (config.auth === 'public') codes.add('rate_limited')
  // Any write under /v1 evaluates If-Match (plugins/conditional-requests.ts): a malformed one is a 400.
  if (checksIfMatch(route)) codes.add('precondition_failed').add('invalid_request')
  return [...codes].filter((code) => ERROR_STATUS.has(code)).sort()
}

function described (status: number, codes: string[]): string {
  return `${STATUS_CODES[status]}: ${codes.map((code) => `\`${code}\``).join(', ')}`
}

const REQUEST_ID = { type: 'string', description: 'The request\'s id, as in the `x-request-id` header: quote it to support' }
const FIELD_PROBLEMS = {
  type: 'array',
  description: 'With `invalid_request`: every problem, with the path of the field',
  items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } }
}

/**
 * RFC 9457 problem details, the error shape for a client whose Accept prefers `application/problem+json`
 * (docs/contract/api-conventions.md#problem-details). A component of the document, named by every error response.
 */
export const PROBLEM_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', description: 'A URI naming the problem: `tag:evidence-hub,2026:errors:<code>`' },
    title: { type: 'string', description: 'The code as words, the same for every answer of that code' },
    status: { type: 'integer', description: 'The HTTP status' },
    detail: { type: 'string', description: 'For people; may change. Branch on `code`.' },
    code: { type: 'string' },
    requestId: REQUEST_ID,
    errors: FIELD_PROBLEMS
  }
}

/** Headers an error of this status always carries, as the document shows them. */
const ERROR_HEADERS: Record<number, Schema> = {
  401: {
    'WWW-Authenticate': {
      type: 'string',
      description:
        'RFC 6750: `Bearer realm="evidence-hub"`, with `error="invalid_token"` and `error_description` when a credential was refused'
    }
  },
  405: { Allow: { type: 'string', description: 'The methods the path answers, e.g. `GET, HEAD, PUT`' } },
  429: { 'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying' } }
}

function errorResponse (status: number, codes: string[]): Schema {
  const body = {
    type: 'object',
    required: ['message', 'code', 'requestId'],
    properties: {
      message: { type: 'string', description: 'For people; may change. Branch on `code`.' },
      code: { type: 'string', enum: codes },
      requestId: REQUEST_ID,
      errors: FIELD_PROBLEMS
    }
  }
  return {
    description: described(status, codes),
    ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
    content: {
      'application/json': { schema: body },
      'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } }
    }
  }
}

function named (status: string, response: unknown, summary: unknown): unknown {
  if (!response || typeof response !== 'object' || 'description' in response) return response
  const text = STATUS_CODES[Number(status)] ?? status
  return { ...response, description: typeof summary === 'string' ? `${text}: ${summary}` : text }
}

/**
 * The credential schemes (components.securitySchemes, plugins/openapi.ts): a key as a bearer token or as `x-api-key`,
 * or an OAuth access token. Any one of them opens a credential operation.
 */
const CREDENTIALS = ['bearer', 'apiKey', 'oauth2'] as const
/**
 * The store header is a security scheme of its own (an API-key scheme on `x-store-env-id`), required together with
 * the credential in each requirement of a store-scoped operation, rather than a header parameter of every operation:
 * so /docs asks for it once, under Authorize, and "Try it out" sends it on every call, as clients do (the SDK's
 * `storeEnvId`). The pipeline still checks it on each request (pipeline/resolve-store.ts).
 */
export const STORE_SCHEME = 'storeEnv'

/** The security requirements of a credential operation: any one credential, and the store header where it is needed. */
export function credentialSecurity (storeScoped: boolean): Array<Record<string, string[]>> {
  return CREDENTIALS.map((scheme) => storeScoped ? { [scheme]: [], [STORE_SCHEME]: [] } : { [scheme]: [] })
}

const IF_NONE_MATCH = {
  type: 'string',
  maxLength: MAX_CONDITION_LENGTH,
  description: 'ETags of copies the client holds (`*` for any): 304 with no body when one is current'
}
const IF_MATCH = {
  type: 'string',
  maxLength: MAX_CONDITION_LENGTH,
  description: 'The ETag from a GET of the resource (or `*`): the change is made only if the resource is still that ' +
    'version, else 412 `precondition_failed` and nothing changes'
}
const ETAG_HEADER = {
  ETag: { type: 'string', description: 'A strong validator of this body: send it in If-None-Match, or in If-Match to change the resource' }
}

function withHeader (schema: Schema, name: string, header: object): void {
  const own = schema.headers as Schema | undefined
  schema.headers = { type: 'object', ...own, properties: { ...(own?.properties as Schema | undefined), [name]: header } }
}

/** docs/contract/api-conventions.md#conditional-requests: ETag and 304 on single-resource GETs, If-Match on their writes. */
function conditionalHeaders (route: Pick<RouteOptions, 'method' | 'url' | 'config'>, schema: Schema, responses: Record<string, unknown>) {
  const config = (route.config ?? {}) as NonNullable<RouteOptions['config']>
  if (marksEtag(route) && responses[200] && !responses[304]) {
    responses[200] = { ...(responses[200] as Schema), headers: ETAG_HEADER }
    responses[304] = { type: 'null', description: 'Not Modified: the ETag in If-None-Match is current; no body' }
    withHeader(schema, 'if-none-match', IF_NONE_MATCH)
  }
  if (config.ifMatch) withHeader(schema, 'if-match', IF_MATCH)
}

/**
 * The route's schema as the document shows it: its success responses named, one error response per status listing
 * the codes the operation can answer with, and the security requirements of its kind of route (with the store header
 * where the pipeline asks for it). The route's own schema objects are never changed (they also validate).
 */
export function documentedSchema (route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>): Schema {
  const schema = { ...(route.schema ?? {}) } as Schema
  const config = (route.config ?? {}) as NonNullable<RouteOptions['config']>
  const method = Array.isArray(route.method) ? route.method[0] : route.method
  // The same name the MCP server gives the operation's tool.
  if (!schema.operationId && route.url.startsWith('/v1/')) {
    const responses = (schema.response ?? {}) as Record<string, Schema>
    const ok = responses[200] ?? responses[201]
    schema.operationId = operationName(method, route.url, ok?.type === 'object' ? ok : undefined)
  }
  const own = (schema.response ?? {}) as Schema
  const responses: Record<string, unknown> = {}
  for (const [status, response] of Object.entries(own)) {
    if (Number(status) < 400) responses[status] = named(status, response, schema.summary)
  }
  const byStatus = new Map<number, string[]>()
  for (const code of errorCodesOf(route)) {
    const status = ERROR_STATUS.get(code)!
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  if (takesIdempotencyKey({ method, config })) {
    for (const [code, status] of IDEMPOTENCY_ERRORS) {
      const codes = byStatus.get(status) ?? []
      if (!codes.includes(code)) byStatus.set(status, [...codes, code].sort())
    }
    schema[IDEMPOTENT_MARK] = true
  }
  for (const [status, codes] of byStatus) {
    // A route whose error has a shape of its own (health's 503) keeps it, with the codes named.
    const shaped = own[status] && own[status] !== ErrorBody ? own[status] as Schema : null
    responses[status] = shaped ? { ...shaped, description: described(status, codes) } : errorResponse(status, codes)
  }
  schema.response = responses
  conditionalHeaders(route, schema, responses)
  if (config.auth === 'credential') {
    schema.security = credentialSecurity(config.storeScoped !== false)
    // The scope that opens the operation (besides `read`/`write` and unrestricted keys), for docs and generated tools.
    if (!config.scopeExempt) {
      schema['x-scope'] = (config.scopesOf ?? [config.resource]).map((resource) => `${resource}:${accessFor(method)}`).join(' ')
    }
    if (config.minRole) schema['x-min-role'] = config.minRole
  } else if (!schema.security) {
    // A route that checks a credential itself (the MCP endpoint) names its security in its own schema.
    schema.security = []
  }
  return schema
}
