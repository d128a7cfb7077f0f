import fp from 'fastify-plugin'
import type { FastifyRequest, RouteOptions } from 'fastify'
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

export function closeRoute (route: RouteOptions): void {
  const url = route.url
  if (isExempt(url)) return
  const { query, ...schema } = (route.schema ?? {}) as Schema
  const given = schema.querystring ?? query
  const body = isObject(schema.body) ? closed(schema.body) : undefined
  const querystring = isObject(given) ? closed(given) : EMPTY_QUERY
  route.schema = { ...schema, ...(body ? { body } : {}), querystring }
  if (!body && !readsOwnBody(url)) {
    route.preValidation = [...[route.preValidation ?? []].flat(), refuseBodyFields] as RouteOptions['preValidation']
  }
}

/** Each app's routes as this plugin saw them, exempt or not: what a test walks to hold every route to the rule. */
const seen = new WeakMap<object, Array<{ method: string, url: string, exempt: boolean }>>()

export function routesSeen (app: object): Array<{ method: string, url: string, exempt: boolean }> {
  return seen.get(app) ?? []
}

export default fp(async (app) => {
  const routes: Array<{ method: string, url: string, exempt: boolean }> = []
  seen.set(app, routes)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, exempt: isExempt(route.url) })
    closeRoute(route)
  })
}, { name: 'strict-input' })
