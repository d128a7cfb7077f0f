import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from '../errors.js'

/**
 * One rule for the JSON API (issue 45, point 9; docs/reference.md "Unknown fields"): an unknown body field or query
 * parameter is a 400 `invalid_request` naming it, as Stripe answers, never silently ignored. A misspelt
 * `updatedSince` would otherwise return every record, and `{"products": [], "foo": 1}` would look accepted.
 *
 * Applied when each route is registered, so a route added later gets it without asking: every object of a route's
 * body and querystring schema that says nothing of extra properties is closed (`additionalProperties: false`); a
 * route without a querystring schema gets an empty, closed one; a route without a body schema refuses a body with
 * fields. An object that declares `additionalProperties` or `patternProperties` is free-form on purpose and is kept.
 *
 * Routes outside this rule, because the caller is not a client of the JSON API or the input is not ours to shape:
 * see EXEMPT below.
 */

type Schema = Record<string | symbol, unknown>

/**
 * - `/admin`, `/oauth`, `/docs`, `/.well-known`, `/mcp`, `/widget.js`: not under /v1. The admin screens and the
 *   OAuth/OIDC endpoints take HTML form posts and redirects whose extra parameters (`state`, `prompt`, buttons)
 *   belong to browsers and the OAuth protocol; MCP speaks JSON-RPC, whose `params` the MCP server checks per tool.
 * - `POST /v1/webhooks/:platform/:storeEnvId`: a platform's webhook payload and query are the platform's, and grow.
 * - `/v1/email/unsubscribe/:token`: a link in a mail; mail clients and link trackers append `utm_*` parameters, and
 *   RFC 8058's one-click POST sends `List-Unsubscribe=One-Click` as a form field.
 * - `GET /v1/uploads/:id`: a public image URL placed in storefront pages, where cache-busting parameters are common.
 */
export const EXEMPT = [
  /^\/(?!v1\/)/,
  /^\/v1\/webhooks\/:platform\/:storeEnvId$/,
  /^\/v1\/email\/unsubscribe\//,
  /^\/v1\/uploads\/:id$/
]

/** Uploads read their body in the handler (multipart, raw video) and refuse any other kind with 415 themselves. */
const READ_BY_HANDLER = /^\/v1\/(uploads\/image|uploads\/videos\/:id|galleries\/:id\/photos)$/

export function readsOwnBody (url: string): boolean {
  return READ_BY_HANDLER.test(url)
}

export function isExempt (url: string): boolean {
  return EXEMPT.some((pattern) => pattern.test(url))
}

const EMPTY_QUERY: Schema = { type: 'object', properties: {}, additionalProperties: false }

/** One closed copy per schema object, for the life of the process: compiled validators are kept per object (compilers.ts). */
const closedCopies = new WeakMap<object, Schema>()

function isObject (value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A copy of `schema` in which every object that is silent about extra properties refuses them. */
export function closed (schema: Schema): Schema {
  const known = closedCopies.get(schema)
  if (known) return known
  const copy: Schema = { ...schema }
  for (const symbol of Object.getOwnPropertySymbols(schema)) copy[symbol] = schema[symbol]
  if (isObject(copy.properties)) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([name, sub]) => [name, isObject(sub) ? closed(sub) : sub]))
  }
  for (const key of ['items', 'not', 'if', 'then', 'else']) {
    if (isObject(copy[key])) copy[key] = closed(copy[key] as Schema)
  }
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map((sub) => isObject(sub) ? closed(sub) : sub)
  }
  // allOf branches see only their own properties: closing them would refuse each other's fields.
  const objectLike = copy.type === 'object' || isObject(copy.properties)
  if (objectLike && !('additionalProperties' in copy) && !('patternProperties' in copy) && !('allOf' in copy)) {
    copy.additionalProperties = false
  }
  closedCopies.set(schema, copy)
  return copy
}

/** A route without a body schema takes no fields: `{}` or no body passes, `{"foo": 1}` is refused naming `foo`. */
async function refuseBodyFields (request: FastifyRequest) {
  const body = request.body
  // Only a parsed JSON or form body: a raw upload arrives as a stream or a Buffer.
  const proto = isObject(body) ? Object.getPrototypeOf(body) : undefined
  if (proto !== Object.prototype && proto !== null) return
  const [field] = Object.keys(body as object)
  if (field !== undefined) {
    throw new errors.InvalidRequest(`Invalid request: ${field} is not a known field (this operation takes no body)`)
  }
}

/** Whether the route's body, if any, is JSON: every /v1 route but the exempt ones and the uploads. */
export function takesJson (url: string | undefined): boolean {
  return url !== undefined && url.startsWith('/v1/') && !isExempt(url) && !readsOwnBody(url)
}

/** The one answer to a body that is not JSON, whichever step notices (here, or fastify's parsers: error-handler.ts). */
export function notJson (contentType: string | undefined): InstanceType<typeof errors.UnsupportedMediaType> {
  const media = contentType?.split(';')[0].trim().slice(0, 100)
  const sent = media ? `Content-Type ${media} was sent` : 'no Content-Type was sent'
  return new errors.UnsupportedMediaType(`This operation takes a JSON body: send it with Content-Type: application/json (${sent})`)
}

function isJsonType (contentType: string | undefined): boolean {
  return contentType?.split(';')[0].trim().toLowerCase() === 'application/json'
}

/**
 * One content-type rule (issue 47, point 5): a JSON route refuses with the same 415 a body sent as anything but
 * `application/json` (fastify reads `text/plain` and would hand the route a string) and, when it takes a body, a
 * request with no Content-Type. A bodyless request to a route without a body schema needs no type.
 */
function requireJson (takesBody: boolean) {
  return async function requireJsonBody (request: FastifyRequest) {
    const type = request.headers['content-type']
    if (isJsonType(type)) return
    const sent = request.body !== undefined && request.body !== null && request.body !== ''
    if (takesBody || sent) throw notJson(type)
  }
}

export function closeRoute (route: RouteOptions): void {
  const url = route.url
  if (isExempt(url)) return
  const { query, ...schema } = (route.schema ?? {}) as Schema
  const given = schema.querystring ?? query
  const body = isObject(schema.body) ? closed(schema.body) : undefined
  const querystring = isObject(given) ? closed(given) : EMPTY_QUERY
  route.schema = { ...schema, ...(body ? { body } : {}), querystring }
  if (readsOwnBody(url)) return
  const steps = body ? [requireJson(true)] : [requireJson(false), refuseBodyFields]
  route.preValidation = [...[route.preValidation ?? []].flat(), ...steps] as RouteOptions['preValidation']
}

/**
 * `{"__proto__": …}` and `{"constructor": {"prototype": …}}` are valid JSON that fastify's parser refuses (they could
 * poison prototypes) with the message of malformed JSON. Told apart here, they get a message naming what is wrong.
 */
const FORBIDDEN_NAMES = 'Invalid request: __proto__ and constructor.prototype are forbidden field names'

function jsonParser (app: FastifyInstance) {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig
  const parse = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  return (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    parse(request, body as string, (err, value) => {
      if (err && (err as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body as string)) {
        done(new errors.InvalidRequest(FORBIDDEN_NAMES))
        return
      }
      done(err, value)
    })
  }
}

function isJson (text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Each app's routes as this plugin saw them, exempt or not: what a test walks to hold every route to the rule. */
const seen = new WeakMap<object, Array<{ method: string, url: string, exempt: boolean }>>()

export function routesSeen (app: object): Array<{ method: string, url: string, exempt: boolean }> {
  return seen.get(app) ?? []
}

export default fp(async (app) => {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonParser(app))
  const routes: Array<{ method: string, url: string, exempt: boolean }> = []
  seen.set(app, routes)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, exempt: isExempt(route.url) })
    closeRoute(route)
  })
}, { name: 'strict-input' })
