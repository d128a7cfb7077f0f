import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from '../errors.js'
import { etagOf, ifMatchHolds, noneMatchHits, parseCondition, type Precondition } from '../lib/conditional.js'

export { MAX_CONDITION_LENGTH } from '../lib/conditional.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A single resource's GET: its 200 answers carry a strong ETag and honour If-None-Match (304). By default every
     * credential GET under /v1 whose path ends with a parameter (`/reviews/:id`); singletons (settings) say `true`.
     */
    etag?: boolean
    /**
     * A PATCH or DELETE of a single resource: the 200 response schema of its GET. An If-Match is checked against the
     * representation as that GET would send it, by the service, inside the write's transaction (`request.precondition`).
     */
    ifMatch?: object
  }
  interface FastifyRequest {
    /** From If-Match on a route with `config.ifMatch`: pass it to the service's write; null when there is nothing to check. */
    precondition: Precondition | null
  }
}

const WRITES = new Set(['PATCH', 'PUT', 'DELETE'])

/** Answers that depend on who asks: no shared cache may hand one credential's body to another. */
const VARY = ['Authorization', 'X-Api-Key', 'X-Store-Env-Id']

function addVary (reply: FastifyReply, names: string[]): void {
  const current = reply.getHeader('vary')
  const have = typeof current === 'string' ? current.split(',').map((n) => n.trim().toLowerCase()) : []
  const missing = names.filter((name) => !have.includes(name.toLowerCase()))
  if (missing.length > 0) {
    reply.header('vary', [typeof current === 'string' && current ? current : null, ...missing].filter(Boolean).join(', '))
  }
}

/** Single-resource GETs of credential routes by default; a route's own `etag` wins. */
export function marksEtag (route: Pick<RouteOptions, 'method' | 'url' | 'config'>): boolean {
  const config = route.config ?? {}
  if (config.etag !== undefined) return config.etag
  const method = Array.isArray(route.method) ? route.method : [route.method]
  return method.includes('GET') && config.auth === 'credential' && /\/:[^/]+$/.test(route.url)
}

/** Writes under /v1 evaluate If-Match: with `config.ifMatch` against the resource, else only `*` passes. */
export function checksIfMatch (route: Pick<RouteOptions, 'method' | 'url'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return route.url.startsWith('/v1/') && methods.some((m) => WRITES.has(m))
}

/**
 * If-Match as the route can evaluate it. A malformed value is a 400 (a client retrying a 412 with a fresh ETag would
 * loop on it). `*` holds for any current representation, and the service's 404 answers for a missing one (the API
 * answers 404 for a missing resource whatever the headers; RFC 9110 would allow 412). A write route that cannot
 * check a tag answers 412 rather than apply a change the client made conditional.
 */
function preconditionOf (request: FastifyRequest, reply: FastifyReply, header: string): Precondition | null {
  const tags = parseCondition(header)
  if (tags === null) {
    throw new errors.InvalidRequest('If-Match must be `*` or a list of quoted ETags, as a GET of the resource sent them')
  }
  if (tags === '*') return null
  const schema = request.routeOptions.config.ifMatch
  if (!schema) throw new errors.PreconditionFailed('This operation does not check If-Match; send it without, or with `*`')
  const serialize = reply.compileSerializationSchema(schema as Record<string, unknown>, '200')
  return (current) => {
    if (!ifMatchHolds(tags, etagOf(serialize(current as Record<string, unknown>)))) {
      throw new errors.PreconditionFailed('The resource has changed since the ETag sent in If-Match: GET it again')
    }
  }
}

/** A single resource's 200: its ETag, and 304 with no body when If-None-Match names it. */
async function tagAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode !== 200 || reply.hasHeader('etag')) return payload
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
  const etag = etagOf(payload)
  reply.header('etag', etag)
  addVary(reply, VARY)
  // Kept by the client, never by a shared cache, and checked again before each use (a 304 costs no body).
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache')
  if (!noneMatchHits(request.headers['if-none-match'], etag)) return payload
  reply.code(304)
  reply.removeHeader('content-type')
  reply.removeHeader('content-length')
  return null
}

/** docs/contract/api-conventions.md#conditional-requests */
export default fp(async (app) => {
  app.decorateRequest('precondition', null)

  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as NonNullable<RouteOptions['config']>
    config.etag = marksEtag({ method: route.method, url: route.url, config })
    route.config = config
    // On the marked routes only: a list or a write pays nothing for it.
    if (config.etag) route.onSend = [...(route.onSend ? [route.onSend].flat() : []), tagAnswer]
    if (!checksIfMatch(route)) return
    const own = route.preHandler ? (Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]) : []
    route.preHandler = [async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers['if-match']
      if (header !== undefined) request.precondition = preconditionOf(request, reply, header)
    }, ...own]
  })
}, { name: 'conditional-requests', dependencies: ['pipeline'] })
