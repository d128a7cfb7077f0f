import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiCode } from '../errors.js'
import { errorPayload, requestIdFrom, type ErrorBody } from '../lib/error-format.js'
import { lostLockRace } from '../lib/bulk.js'
import { newId } from '../lib/ids.js'
import { problemsOf, type ValidationIssue } from './validation-messages.js'
import { notJson, takesJson } from './strict-input.js'

const PASS_THROUGH_FASTIFY = new Map<string, { status: number, code: string }>([
  ['FST_ERR_CTP_INVALID_JSON_BODY', { status: 400, code: 'invalid_request' }],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', { status: 400, code: 'invalid_request' }],
  ['FST_ERR_CTP_BODY_TOO_LARGE', { status: 413, code: 'payload_too_large' }],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', { status: 415, code: 'unsupported_media_type' }],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', { status: 400, code: 'invalid_request' }],
  ['FST_REQ_FILE_TOO_LARGE', { status: 413, code: 'payload_too_large' }],
  ['FST_INVALID_MULTIPART_CONTENT_TYPE', { status: 415, code: 'unsupported_media_type' }]
])

/**
 * Error bodies are written as text here, never through the route's response schema: a route whose schema for that
 * status has another shape (health's 503) would otherwise fail to serialize and fastify would answer itself.
 * Every one carries the request's id, in the body and in `x-request-id` (also set here: an answer given before the
 * request-ids hook ran, such as the router's or the draining server's, has it too), in the shape the client's Accept
 * asks for (lib/error-format.ts).
 */
export function answer (reply: FastifyReply, status: number, body: ErrorBody) {
  if (status === 413) readRestOfBody(reply)
  const request = reply.request
  const { contentType, text } = errorPayload(status, body, request.id, request.headers.accept)
  reply.header('x-request-id', request.id)
  return reply.status(status).type(contentType).serializer(asIs).send(text)
}

const asIs = (text: string) => text

/** How much of a refused body is still read after the 413, and for how long, before the connection is cut. */
const LINGER_MAX_BYTES = 64 * 1024 * 1024
const LINGER_MS = 30_000

/**
 * A 413 is sent before the body has all arrived. Closing the connection then (fastify asks for it) resets it while
 * the client is still sending, and most clients report a broken pipe instead of the answer. So the rest of the
 * body is read and dropped, up to a bound, and the connection stays usable, as nginx's lingering close does.
 */
function readRestOfBody (reply: FastifyReply) {
  const raw = reply.request.raw
  reply.removeHeader('connection')
  // An injected request (tests, the agent server's calls) has no socket to read from or cut.
  const socket = raw.socket as Partial<Socket> | null
  if (raw.complete || raw.destroyed || typeof socket?.destroy !== 'function') return
  let read = 0
  const cut = () => {
    clearTimeout(timer)
    socket.destroy?.()
  }
  const timer = setTimeout(cut, LINGER_MS)
  timer.unref()
  raw.on('data', (chunk: Buffer) => {
    read += chunk.length
    if (read > LINGER_MAX_BYTES) cut()
  })
  raw.once('end', () => clearTimeout(timer))
  raw.once('close', () => clearTimeout(timer))
  raw.resume()
}

/**
 * Methods a URL under /v1 has routes for (HEAD with every GET: fastify adds it). OPTIONS is left out: it is routed
 * for every URL, for CORS preflights of storefront calls, and answers nothing else. Paths outside /v1 (admin, OAuth,
 * MCP) stay 404, so that their routes' existence is not told to whoever guesses at them.
 */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

function allowedMethods (app: FastifyInstance, path: string): string[] {
  if (!path.startsWith('/v1/')) return []
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null)
}

/** docs/contract/api-conventions.md#errors: `{ message, code }`, nothing else leaks (no stack, no SQL). */
export default fp(async (app) => {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.validation) {
      const errors = problemsOf(err.validation as ValidationIssue[], err.validationContext === 'body' ? undefined : err.validationContext)
      return answer(reply, 400, {
        message: `Invalid request: ${errors.map((e) => `${e.path || 'body'} ${e.message}`).join('; ')}`,
        code: 'invalid_request',
        errors
      })
    }
    const code = apiCode(err.code)
    if (code) return answer(reply, err.statusCode ?? 500, { message: err.message, code })
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && takesJson(request.routeOptions.url)) {
      return answer(reply, 415, { message: notJson(request.headers['content-type']).message, code: 'unsupported_media_type' })
    }
    const known = err.code ? PASS_THROUGH_FASTIFY.get(err.code) : undefined
    if (known) return answer(reply, known.status, { message: err.message, code: known.code })
    if (isDatabaseDown(err)) {
      return answer(reply, 503, { message: 'The database is unreachable', code: 'service_unavailable' })
    }
    if (lostLockRace(err)) {
      // Writers that retry on their own (lib/bulk.ts withDeadlockRetry) gave up, or never retried: the transaction was
      // rolled back whole, so the client may send the same request again.
      request.log.warn({ code: err.code }, 'transaction lost a lock race')
      reply.header('retry-after', '1')
      return answer(reply, 503, {
        message: 'The request met a concurrent change and was not applied; retry it',
        code: 'service_unavailable'
      })
    }
    const status = err.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err }, 'unhandled error')
      return answer(reply, 500, { message: 'Internal server error', code: 'internal_error' })
    }
    // Other 4xx from fastify or its plugins: their message is written for clients, but their codes are not ours.
    return answer(reply, status, { message: err.message, code: 'invalid_request' })
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]
    const allowed = allowedMethods(app, path)
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '))
      return answer(reply, 405, {
        message: `${request.method} is not allowed on ${path}; it answers ${allowed.join(', ')}`,
        code: 'method_not_allowed'
      })
    }
    answer(reply, 404, { message: `Route ${request.method} ${path} not found`, code: 'not_found' })
  })

  // Node answers an `Expect` it does not know with a bare 417 unless the server listens for it.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdFrom(req.headers['x-request-id'])
    const body = { message: 'Only "Expect: 100-continue" is supported', code: 'invalid_request' }
    const { contentType, text } = errorPayload(417, body, requestId, req.headers.accept)
    res.writeHead(417, {
      'content-type': contentType,
      'content-length': Buffer.byteLength(text),
      'x-request-id': requestId,
      connection: 'close'
    }).end(text)
  })

  // Replaces fastify's own 503 body for requests that arrive while the server drains (return503OnClosing: false).
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return
    reply.header('Connection', 'close')
    return answer(reply, 503, { message: 'The server is shutting down; retry', code: 'service_unavailable' })
  })
}, { name: 'error-handler' })

const FRAMEWORK_ERRORS: Record<string, { status: number, message: string }> = {
  FST_ERR_BAD_URL: { status: 400, message: 'The URL is not valid: a percent-escape does not decode' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, message: 'A path segment of the URL is too long' }
}

/** fastify's `frameworkErrors`: errors the router raises before any route (or our error handler) is involved. */
export function frameworkErrors (err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const known = err.code ? FRAMEWORK_ERRORS[err.code] : undefined
  const status = known?.status ?? err.statusCode ?? 400
  answer(reply, status, { message: known?.message ?? err.message, code: status >= 500 ? 'internal_error' : 'invalid_request' })
}

/** fastify's `clientErrorHandler`: what Node could not parse as HTTP (bad header, headers too large, too slow). */
export function clientErrorHandler (err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] = err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? [408, 'request_timeout', 'The request did not arrive in time']
    : err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'invalid_request', 'The request headers are too large']
      : [400, 'invalid_request', 'The request is not valid HTTP']
  // The request could not be read, so neither its X-Request-Id nor its Accept: an id of ours, the default shape.
  const requestId = newId('req')
  const { contentType, text } = errorPayload(status, { message, code }, requestId, undefined)
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${contentType}\r\nX-Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`)
  }
  socket.destroy(err)
}

const DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'PROTOCOL_CONNECTION_LOST', 'EPIPE', 'ER_CON_COUNT_ERROR'])

export function isDatabaseDown (err: { code?: string, name?: string }): boolean {
  return DOWN_CODES.has(err.code ?? '') || err.name === 'KnexTimeoutError'
}
